// A session's telemetry, made from its event stream after the one redaction point (the session's
// `run`, wiring/session-controls.ts): it observes the events, never changes them. Traces: a
// session span; under it a run's `invoke_agent` span (a user prompt to its `done`); under that
// each model call (`chat <model>`) and each tool call (`execute_tool <tool>`: it runs after the
// call that asked for it has ended, so it is the run's child, as the GenAI agent spans put it).
// Attribute names: https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/ and
// gen-ai-agent-spans/. Log records as Claude Code's events (user_prompt, tool_decision,
// tool_result, api_request, api_error), prompts and tool contents only when asked for.
import type { AgentEvent } from "../core/events.ts";
import type { Usage } from "../core/messages.ts";
import { type SignalItems, SignalSender } from "./otlp-export.ts";
import { EXIT_FLUSH_LIMIT_MS, type Signal, type TelemetryConfig } from "./telemetry-config.ts";
import {
  type Attributes,
  type LogData,
  newSpanId,
  newTraceId,
  nowNs,
  SPAN_KIND,
  type SpanData,
  STATUS_CODE,
} from "./telemetry-data.ts";
import { SessionMetrics } from "./telemetry-metrics.ts";

export interface SessionTelemetry {
  observe(event: AgentEvent): void;
  /** Ends the session span and sends what is left, within EXIT_FLUSH_LIMIT_MS. */
  close(): Promise<void>;
}

/** What a tool's arguments or result may add to a record (OTEL_LOG_TOOL_DETAILS): at most this many characters. */
const DETAIL_LIMIT = 4096;

/** GenAI's provider names where harness's differ (https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/). */
const PROVIDER_NAMES: Record<string, string> = { gemini: "gcp.gemini", openrouter: "openrouter" };

type OpenSpan = Omit<SpanData, "endNs">;

export function startSessionTelemetry(
  config: TelemetryConfig,
  info: { sessionId: () => string; version: string },
  warn: (message: string) => void,
): SessionTelemetry {
  const header = {
    resource: { ...config.resource, "service.version": info.version },
    scope: { name: "harness", version: info.version },
  };
  const senders = Object.fromEntries(
    Object.entries(config.exports).map(([signal, target]) => [
      signal,
      new SignalSender(signal as Signal, target, header, warn),
    ]),
  ) as { [S in Signal]?: SignalSender<S> };
  const traceId = newTraceId();
  const pending: SignalItems = { traces: [], metrics: [], logs: [] };
  const metrics = new SessionMetrics();
  const opened = (name: string, kind: number, parent: OpenSpan | undefined, attributes: Attributes): OpenSpan => ({
    traceId,
    spanId: newSpanId(),
    ...(parent ? { parentSpanId: parent.spanId } : {}),
    name,
    kind,
    startNs: nowNs(),
    attributes,
  });
  const end = (span: OpenSpan, more: Partial<SpanData> = {}) => {
    if (senders.traces)
      pending.traces.push({ ...span, ...more, attributes: { ...span.attributes, ...more.attributes }, endNs: nowNs() });
  };
  const log = (eventName: string, attributes: Attributes, span?: OpenSpan, isError = false) => {
    if (!senders.logs) return;
    const record: LogData = {
      timeNs: nowNs(),
      eventName,
      severityNumber: isError ? 17 : 9,
      severityText: isError ? "ERROR" : "INFO",
      body: eventName,
      attributes: { "session.id": info.sessionId(), ...attributes },
      traceId,
      ...(span ? { spanId: span.spanId } : {}),
    };
    pending.logs.push(record);
  };
  const cut = (text: string) => (text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT)}…` : text);

  // Named at its end: the id is not known yet while the session is being built.
  const session = opened("harness.session", SPAN_KIND.internal, undefined, {});
  metrics.record("harness.session.count", 1, {});

  let run: OpenSpan | undefined;
  let model = { provider: "", request: "" };
  let call: (OpenSpan & { finishReasons?: string[] }) | undefined;
  const tools = new Map<string, OpenSpan>();

  const endCall = (usage?: Usage, responseModel?: string) => {
    if (!call) return;
    const attributes: Attributes = {
      ...(call.finishReasons ? { "gen_ai.response.finish_reasons": call.finishReasons } : {}),
    };
    const common = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": model.provider,
      "gen_ai.request.model": model.request,
      "gen_ai.response.model": responseModel ?? model.request,
    };
    if (usage) {
      const input = usage.input + usage.cacheRead + usage.cacheWrite; // GenAI counts cached input in input_tokens
      Object.assign(attributes, {
        "gen_ai.response.model": common["gen_ai.response.model"],
        "gen_ai.usage.input_tokens": input,
        "gen_ai.usage.output_tokens": usage.output,
        "gen_ai.usage.cache_read.input_tokens": usage.cacheRead,
        "gen_ai.usage.cache_creation.input_tokens": usage.cacheWrite,
      });
      metrics.record("gen_ai.client.token.usage", input, { ...common, "gen_ai.token.type": "input" });
      metrics.record("gen_ai.client.token.usage", usage.output, { ...common, "gen_ai.token.type": "output" });
    }
    const seconds = Number(nowNs() - call.startNs) / 1e9;
    metrics.record("gen_ai.client.operation.duration", seconds, common);
    log(
      "harness.api_request",
      {
        model: common["gen_ai.response.model"],
        duration_ms: Math.round(seconds * 1000),
        ...(usage
          ? { input_tokens: usage.input, output_tokens: usage.output, cache_read_tokens: usage.cacheRead }
          : {}),
      },
      call,
    );
    end(call, { attributes });
    call = undefined;
  };

  const observe = (event: AgentEvent): void => {
    switch (event.type) {
      case "start":
        model = { provider: PROVIDER_NAMES[event.provider] ?? event.provider, request: event.model };
        run = opened("invoke_agent harness", SPAN_KIND.internal, session, {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": "harness",
          "gen_ai.provider.name": model.provider,
          "gen_ai.system": model.provider, // the name before gen_ai.provider.name (semconv 1.36 and older)
          "gen_ai.request.model": event.model,
          "gen_ai.conversation.id": info.sessionId(), // /clear and /resume change it; the session span keeps the first
        });
        return;
      case "message":
        if (event.message.role === "user") {
          const text = event.message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
          log(
            "harness.user_prompt",
            { prompt_length: text.length, ...(config.logPrompts ? { prompt: text } : {}) },
            run,
          );
        } else if (event.message.role === "assistant" && call) {
          call.finishReasons = [event.message.stopReason];
        }
        return;
      case "turn_start":
        endCall();
        call = opened(`chat ${model.request}`, SPAN_KIND.client, run, {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": model.provider,
          "gen_ai.system": model.provider,
          "gen_ai.request.model": model.request,
          "harness.turn": event.turn,
        });
        return;
      case "usage":
        for (const [type, count] of Object.entries({
          input: event.usage.input,
          output: event.usage.output,
          cacheRead: event.usage.cacheRead,
          cacheCreation: event.usage.cacheWrite,
        })) {
          if (count > 0) metrics.record("harness.token.usage", count, { type, model: event.model ?? model.request });
        }
        endCall(event.usage, event.model);
        return;
      case "tool_start": {
        endCall();
        const span = opened(`execute_tool ${event.name}`, SPAN_KIND.internal, run, {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": event.name,
          "gen_ai.tool.call.id": event.id,
          ...(config.logToolDetails ? { "gen_ai.tool.call.arguments": cut(event.arguments) } : {}),
        });
        tools.set(event.id, span);
        log("harness.tool_decision", { tool_name: event.name, tool_use_id: event.id, decision: "accept" }, span);
        return;
      }
      case "tool_end": {
        endCall();
        const started = tools.get(event.id);
        tools.delete(event.id);
        const decision = started ? "accept" : "reject"; // refused, blocked, unknown or invalid: no tool_start
        const span =
          started ??
          opened(`execute_tool ${event.name}`, SPAN_KIND.internal, run, {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.name,
            "gen_ai.tool.call.id": event.id,
          });
        if (!started) log("harness.tool_decision", { tool_name: event.name, tool_use_id: event.id, decision }, span);
        const details: Attributes = config.logToolDetails ? { "gen_ai.tool.call.result": cut(event.content) } : {};
        end(span, {
          attributes: { ...details, "harness.tool.decision": decision },
          ...(event.isError ? { status: { code: STATUS_CODE.error } } : {}),
        });
        metrics.record("harness.tool.calls", 1, { "gen_ai.tool.name": event.name, decision, success: !event.isError });
        if (started)
          metrics.record("gen_ai.execute_tool.duration", event.durationMs / 1000, { "gen_ai.tool.name": event.name });
        log(
          "harness.tool_result",
          {
            tool_name: event.name,
            tool_use_id: event.id,
            success: !event.isError,
            duration_ms: event.durationMs,
            ...details,
          },
          span,
        );
        return;
      }
      case "retry":
        log(
          "harness.api_error",
          { model: model.request, error: event.error, attempt: event.attempt },
          call ?? run,
          true,
        );
        return;
      case "done": {
        endCall();
        for (const span of tools.values()) end(span, { status: { code: STATUS_CODE.error, message: "not finished" } });
        tools.clear();
        if (event.cost !== undefined) metrics.record("harness.cost.usage", event.cost, { model: model.request });
        if (event.error) log("harness.api_error", { model: model.request, error: event.error }, run, true);
        if (run) {
          const failed = event.reason === "error" || event.reason === "aborted";
          end(run, {
            attributes: { "harness.done.reason": event.reason, "harness.turns": event.turns },
            ...(failed ? { status: { code: STATUS_CODE.error, message: event.error ?? event.reason } } : {}),
          });
        }
        run = undefined;
        return;
      }
      default:
        return; // deltas, progress, compaction, todo, subagent events: nothing of their own to trace
    }
  };

  const sendPending = () =>
    Promise.all([senders.traces?.send(pending.traces.splice(0)), senders.logs?.send(pending.logs.splice(0))]);
  const sendMetrics = () => senders.metrics?.send(metrics.snapshot());
  const spansAndLogs = setInterval(() => void sendPending(), config.scheduleDelayMs);
  const metricTimer = setInterval(() => void sendMetrics(), config.metricIntervalMs);
  spansAndLogs.unref();
  metricTimer.unref();

  let hasThrown = false;
  return {
    // Telemetry never stops a run: a fault of its own is said once and the event is passed over.
    observe(event) {
      try {
        observe(event);
      } catch (error) {
        if (!hasThrown) warn(`telemetry: an event could not be recorded (${(error as Error).message}); said once`);
        hasThrown = true;
      }
    },
    async close() {
      clearInterval(spansAndLogs);
      clearInterval(metricTimer);
      observe({
        type: "done",
        reason: "aborted",
        answer: "",
        turns: 0,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      }); // a run still open (none after a normal end)
      end(session, { attributes: { "session.id": info.sessionId(), "gen_ai.conversation.id": info.sessionId() } });
      let bound: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        bound = setTimeout(resolve, EXIT_FLUSH_LIMIT_MS);
        bound.unref();
      });
      await Promise.race([Promise.all([sendPending(), sendMetrics()]), limit]);
      clearTimeout(bound);
      for (const sender of Object.values(senders)) sender?.abort();
    },
  };
}
