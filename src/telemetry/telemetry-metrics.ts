// A session's metrics, cumulative from its start (each export sends the totals so far, so a lost
// export loses nothing). Names: Claude Code's (claude_code.session.count, .token.usage,
// .cost.usage: https://code.claude.com/docs/en/monitoring-usage) with harness's prefix, and the
// GenAI conventions' histograms (gen_ai.client.token.usage, gen_ai.client.operation.duration:
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/; gen_ai.execute_tool.duration:
// https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/execute-tool.md),
// with the bucket boundaries those pages advise.
import { type Attributes, type MetricData, nowNs } from "./telemetry-data.ts";

const TOKEN_BOUNDS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const SECONDS_BOUNDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

interface Instrument {
  description: string;
  unit: string;
  kind: "sum" | "histogram";
  isInt?: boolean;
  bounds?: readonly number[];
}

const INSTRUMENTS = {
  "harness.session.count": { description: "Sessions started", unit: "{session}", kind: "sum", isInt: true },
  "harness.token.usage": { description: "Tokens spent, by type and model", unit: "tokens", kind: "sum", isInt: true },
  "harness.cost.usage": {
    description: "Cost of the runs, where the model's prices are known",
    unit: "USD",
    kind: "sum",
  },
  "harness.tool.calls": {
    description: "Tool calls, by tool, decision and success",
    unit: "{call}",
    kind: "sum",
    isInt: true,
  },
  "gen_ai.client.token.usage": {
    description: "Tokens per model call",
    unit: "{token}",
    kind: "histogram",
    bounds: TOKEN_BOUNDS,
  },
  "gen_ai.client.operation.duration": {
    description: "Model call duration",
    unit: "s",
    kind: "histogram",
    bounds: SECONDS_BOUNDS,
  },
  "gen_ai.execute_tool.duration": {
    description: "Tool call duration",
    unit: "s",
    kind: "histogram",
    bounds: SECONDS_BOUNDS,
  },
} satisfies Record<string, Instrument>;

type MetricName = keyof typeof INSTRUMENTS;

interface Series {
  attributes: Attributes;
  value: number; // sums
  count: number; // histograms
  min: number;
  max: number;
  buckets: number[];
}

export class SessionMetrics {
  private readonly startNs = nowNs();
  private readonly series = new Map<MetricName, Map<string, Series>>();

  /** Adds to a counter, or records one measurement of a histogram. */
  record(name: MetricName, value: number, attributes: Attributes): void {
    const instrument: Instrument = INSTRUMENTS[name];
    const byKey = this.series.get(name) ?? new Map<string, Series>();
    this.series.set(name, byKey);
    const key = JSON.stringify(attributes);
    const bucketCount = (instrument.bounds?.length ?? -1) + 1;
    const series = byKey.get(key) ?? {
      attributes,
      value: 0,
      count: 0,
      min: value,
      max: value,
      buckets: Array(bucketCount).fill(0),
    };
    byKey.set(key, series);
    series.value += value;
    series.count += 1;
    series.min = Math.min(series.min, value);
    series.max = Math.max(series.max, value);
    if (instrument.bounds) {
      const index = instrument.bounds.findIndex((bound) => value <= bound); // buckets are (previous, bound]
      series.buckets[index === -1 ? instrument.bounds.length : index] += 1;
    }
  }

  /** The totals so far, one metric per instrument that has a measurement. */
  snapshot(): MetricData[] {
    const timeNs = nowNs();
    return [...this.series].map(([name, byKey]): MetricData => {
      const instrument: Instrument = INSTRUMENTS[name];
      const base = { name, description: instrument.description, unit: instrument.unit, startNs: this.startNs, timeNs };
      const all = [...byKey.values()];
      if (instrument.kind === "sum") {
        const points = all.map((series) => ({ attributes: series.attributes, value: series.value }));
        return { ...base, kind: "sum", isInt: instrument.isInt === true, points };
      }
      const points = all.map((series) => ({
        attributes: series.attributes,
        count: series.count,
        sum: series.value,
        min: series.min,
        max: series.max,
        bucketCounts: [...series.buckets],
      }));
      return { ...base, kind: "histogram", bounds: instrument.bounds ?? [], points };
    });
  }
}
