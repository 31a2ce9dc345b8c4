import MotionCore

/// How far a live session's reps and series are in the database. The next checkpoint appends past this point as
/// long as its summary still begins with what was written: the same last rep at the same position, the same last
/// sample at the same position, the same sampling interval and capacity. Reps and samples carry their pose times, which only
/// grow, so after a reset (reps cleared) or a series that halved its resolution (samples thinned, interval doubled)
/// the check fails and everything is rewritten.
struct WrittenDetails: Sendable, Equatable {
    /// Reps written.
    var repCount: Int
    /// The last of them.
    var lastRep: Rep?
    /// How far the value series is written.
    var series: SeriesMark
    /// How far the motion series is written.
    var motion: SeriesMark

    /// What writing `summary` whole (or up to its end) leaves.
    init(_ summary: SessionSummary) {
        repCount = summary.reps.count
        lastRep = summary.reps.last
        series = SeriesMark(summary.series)
        motion = SeriesMark(summary.motion)
    }

    /// Whether `summary`'s reps begin with the written ones.
    func repsContinue(in summary: SessionSummary) -> Bool {
        summary.reps.count >= repCount && (repCount == 0 || summary.reps[repCount - 1] == lastRep)
    }
}

/// What writing a session's reps and series does, given how far they are written already (``WrittenDetails``):
/// decided here, once for both stores, which only turn it into their statements.
struct DetailWrites {
    /// Whether the stored reps are deleted first: the summary does not continue them.
    let replacesReps: Bool
    /// The positions of the reps to insert.
    let newReps: Range<Int>
    /// The value series' write; nil when it has nothing to write.
    let series: SeriesWrite?
    /// The motion series' write; nil when it has nothing to write.
    let motion: SeriesWrite?

    /// The write of `summary`: only what follows `after` when the summary continues it, all of it otherwise.
    init(_ summary: SessionSummary, after: WrittenDetails?) {
        let continues = after.map { $0.repsContinue(in: summary) } ?? false
        replacesReps = !continues
        let firstRep = continues ? after?.repCount ?? 0 : 0
        newReps = firstRep..<max(firstRep, summary.reps.count)
        series = SeriesWrite(summary.series, after: after?.series)
        motion = SeriesWrite(summary.motion, after: after?.motion)
    }

    /// The first write of a new session's `summary` (a create): all of it, with nothing stored to delete.
    init(new summary: SessionSummary) {
        replacesReps = false
        newReps = 0..<summary.reps.count
        series = SeriesWrite(new: summary.series)
        motion = SeriesWrite(new: summary.motion)
    }
}

/// What writing one series does: a chunk of the samples past what was written when the series continues it;
/// otherwise everything from its first held sample on, the stored chunks from there on deleted and its shape written
/// first. That is the whole series, unless its owner released samples (``ValueSeries/release(before:)``), which it
/// does only once they are stored: the chunks before them stand.
struct SeriesWrite: Equatable {
    /// The position from which the stored chunks are deleted; nil when the write only appends, or when nothing is
    /// stored (a new session).
    let deletesFrom: Int?
    /// Whether the shape (interval, capacity) is written first: when the series is rewritten, or written first.
    let writesShape: Bool
    /// The first sample of the chunk to insert; the series' count when there is none.
    let firstSample: Int
    /// Whether a chunk is inserted.
    let appends: Bool

    /// The write of `series` after `after`, or nil when there is nothing to write: a series not stored while empty
    /// (``ChunkedSeries/storesEmpty``) that is still empty.
    init?<Series: ChunkedSeries>(_ series: Series, after: SeriesMark?) {
        guard Series.storesEmpty || series.count > 0 || (after?.count ?? 0) > 0 else { return nil }
        // A series not stored while empty has no shape row yet: its first samples write one.
        if let after, after.continues(in: series), Series.storesEmpty || after.count > 0 {
            // Past the written samples, or past a stretch the series let go of unwritten (see `SampledSeries`).
            (deletesFrom, writesShape, firstSample) = (nil, false, max(after.count, series.heldStart))
        } else {
            (deletesFrom, writesShape, firstSample) = (series.heldStart, true, series.heldStart)
        }
        appends = firstSample < series.count
    }

    /// The first write of a new session's `series`: its shape and samples, nothing to delete; nil when there is
    /// nothing to write (a series not stored while empty, empty).
    init?<Series: ChunkedSeries>(new series: Series) {
        guard Series.storesEmpty || series.count > 0 else { return nil }
        (deletesFrom, writesShape, firstSample) = (nil, true, series.heldStart)
        appends = firstSample < series.count
    }
}
