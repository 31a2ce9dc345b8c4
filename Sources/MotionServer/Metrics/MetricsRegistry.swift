import HTTPServer
import Synchronization

/// Counters, gauges and histograms rendered in the Prometheus text format (version 0.0.4).
///
/// Families are declared once; labelled series are created on first use, at most ``maxSeriesPerFamily`` per family
/// (label values should come from a bounded set, such as route patterns; past the bound new series are not created,
/// so no input can grow the registry). Unlabelled counters are plain atomics, cheap enough for the per-frame path.
public final class MetricsRegistry: Sendable {
    /// The most label sets one family holds.
    public let maxSeriesPerFamily: Int

    private struct Family: Sendable {
        var name: String
        var help: String
        var type: String
        var labelNames: [String]
        var series: [[String]: Double] = [:]
        var histograms: [[String]: HistogramValues] = [:]
        var buckets: [Double] = []

        /// Adds to a series in place (no copy of the family), unless it is new and the family is full.
        mutating func add(_ amount: Double, to labels: [String], maxSeries: Int) {
            if let index = series.index(forKey: labels) {
                series.values[index] += amount
            } else if series.count < maxSeries {
                series[labels] = amount
            }
        }
    }

    private struct HistogramValues: Sendable {
        var counts: [Int]
        var sum = 0.0
        var count = 0
    }

    private let families = Locked<[String: Family]>([:])
    private let order = Locked<[String]>([])

    /// Creates an empty registry.
    /// - Parameter maxSeriesPerFamily: The most label sets one family holds.
    public init(maxSeriesPerFamily: Int = 1_000) { self.maxSeriesPerFamily = maxSeriesPerFamily }

    /// Declares a metric family (idempotent).
    /// - Parameters:
    ///   - name: The metric name, e.g. `motion_frames_total`.
    ///   - help: One line of help.
    ///   - type: `counter`, `gauge` or `histogram`.
    ///   - labels: The label names.
    ///   - buckets: Histogram upper bounds, ascending (histograms only).
    public func declare(_ name: String, help: String, type: String, labels: [String] = [], buckets: [Double] = []) {
        families.withLock { families in
            guard families[name] == nil else { return }
            families[name] = Family(name: name, help: help, type: type, labelNames: labels, buckets: buckets)
            order.withLock { $0.append(name) }
        }
    }

    /// Adds `amount` to a counter or gauge series.
    /// - Parameters:
    ///   - name: A declared family.
    ///   - labels: Label values, in the declared order.
    ///   - amount: The increment (negative for gauges going down).
    public func add(_ name: String, labels: [String] = [], _ amount: Double = 1) {
        families.withLock { families in families[name]?.add(amount, to: labels, maxSeries: maxSeriesPerFamily) }
    }

    /// Sets a gauge series.
    /// - Parameters:
    ///   - name: A declared family.
    ///   - labels: Label values.
    ///   - value: The value.
    public func set(_ name: String, labels: [String] = [], _ value: Double) {
        families.withLock { families in
            guard let family = families[name], family.series[labels] != nil || family.series.count < maxSeriesPerFamily
            else { return }
            families[name]?.series[labels] = value
        }
    }

    /// Records one observation in a histogram.
    /// - Parameters:
    ///   - name: A declared histogram family.
    ///   - labels: Label values.
    ///   - value: The observation.
    public func observe(_ name: String, labels: [String] = [], _ value: Double) {
        families.withLock { families in
            guard var family = families[name],
                family.histograms[labels] != nil || family.histograms.count < maxSeriesPerFamily
            else { return }
            var values =
                family.histograms[labels] ?? HistogramValues(counts: Array(repeating: 0, count: family.buckets.count))
            for (index, bound) in family.buckets.enumerated() where value <= bound { values.counts[index] += 1 }
            values.sum += value
            values.count += 1
            family.histograms[labels] = values
            families[name] = family
        }
    }

    /// The registry in Prometheus text format, plus `extra` lines appended as they are.
    public func render(extra: [String] = []) -> String {
        let names = order.withLock { $0 }
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in names {
            guard let family = snapshot[name] else { continue }
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            if family.type == "histogram" {
                for (labels, values) in family.histograms.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                    for (index, bound) in family.buckets.enumerated() {
                        let le = Self.format(bound)
                        out +=
                            "\(name)_bucket\(Self.labels(family.labelNames + ["le"], labels + [le])) \(values.counts[index])\n"
                    }
                    out +=
                        "\(name)_bucket\(Self.labels(family.labelNames + ["le"], labels + ["+Inf"])) \(values.count)\n"
                    out += "\(name)_sum\(Self.labels(family.labelNames, labels)) \(Self.format(values.sum))\n"
                    out += "\(name)_count\(Self.labels(family.labelNames, labels)) \(values.count)\n"
                }
            } else {
                if family.series.isEmpty && family.labelNames.isEmpty { out += "\(name) 0\n" }
                for (labels, value) in family.series.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                    out += "\(name)\(Self.labels(family.labelNames, labels)) \(Self.format(value))\n"
                }
            }
        }
        for line in extra { out += line + "\n" }
        return out
    }

    private static func labels(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { name, value in "\(name)=\"\(escapedLabelValue(value))\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// A label value as the text format wants it (`\\`, `\"`, `\n`), escaped scalar by scalar — never by
    /// Character, where `\r\n` is one — and with every other control character replaced by U+FFFD, so no value
    /// can end a line and forge a sample.
    static func escapedLabelValue(_ value: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}"
                || scalar == "\u{2029}":
                out.unicodeScalars.append("\u{FFFD}")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
