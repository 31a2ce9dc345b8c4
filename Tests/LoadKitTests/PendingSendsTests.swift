import LoadKit
import Testing

@Suite struct PendingSendsTests {
    /// The obvious implementation ``PendingSends`` must agree with: an array and a read index, never compacted.
    struct Model {
        var entries: [(intended: UInt64, actual: UInt64)] = []
        var head = 0

        var count: Int { entries.count - head }
        var waiting: [UInt64] { entries[head...].map(\.intended) }

        mutating func pop() -> (intended: UInt64, actual: UInt64)? {
            guard head < entries.count else { return nil }
            head += 1
            return entries[head - 1]
        }
    }

    /// Checks every observable property of `pending` against `model`.
    static func expectAgreement(
        _ pending: PendingSends, _ model: Model, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(pending.count == model.count, sourceLocation: sourceLocation)
        #expect(
            pending.oldest?.intended == model.entries.dropFirst(model.head).first?.intended,
            sourceLocation: sourceLocation)
        #expect(
            pending.oldest?.actual == model.entries.dropFirst(model.head).first?.actual,
            sourceLocation: sourceLocation)
        #expect(Array(pending.waitingIntended) == model.waiting, sourceLocation: sourceLocation)
    }

    @Test func startsEmpty() {
        var pending = PendingSends()
        #expect(pending.count == 0)
        #expect(pending.oldest == nil)
        #expect(pending.waitingIntended.isEmpty)
        #expect(pending.pop() == nil)
        #expect(pending.drain().isEmpty)
    }

    /// Entries come out in the order they went in, each with both of its times.
    @Test func popsInFirstInFirstOutOrder() {
        var pending = PendingSends()
        pending.push(intended: 100, actual: 105)
        pending.push(intended: 200, actual: 230)
        pending.push(intended: 300, actual: 301)
        #expect(pending.count == 3)
        #expect(pending.oldest?.intended == 100)
        #expect(pending.oldest?.actual == 105)
        #expect(Array(pending.waitingIntended) == [100, 200, 300])

        let first = pending.pop()
        #expect(first?.intended == 100 && first?.actual == 105)
        #expect(pending.count == 2)
        #expect(pending.oldest?.intended == 200)
        #expect(Array(pending.waitingIntended) == [200, 300])

        let second = pending.pop()
        #expect(second?.intended == 200 && second?.actual == 230)
        let third = pending.pop()
        #expect(third?.intended == 300 && third?.actual == 301)
        #expect(pending.count == 0)
        #expect(pending.oldest == nil)
        #expect(pending.pop() == nil)

        // Usable again after running empty.
        pending.push(intended: 400, actual: 410)
        #expect(pending.count == 1)
        #expect(pending.oldest?.intended == 400)
    }

    /// `oldest` and `waitingIntended` only look; they remove nothing.
    @Test func peekingDoesNotRemove() {
        var pending = PendingSends()
        pending.push(intended: 1, actual: 2)
        pending.push(intended: 3, actual: 4)
        _ = pending.oldest
        _ = pending.waitingIntended
        #expect(pending.count == 2)
        #expect(pending.pop()?.intended == 1)
    }

    /// Draining returns the waiting intended times oldest first (not those already popped) and empties the log.
    @Test func drainReturnsWaitingIntendedTimesAndEmpties() {
        var pending = PendingSends()
        for value: UInt64 in 1...5 { pending.push(intended: value * 10, actual: value * 10 + 1) }
        _ = pending.pop()
        _ = pending.pop()
        #expect(pending.drain() == [30, 40, 50])
        #expect(pending.count == 0)
        #expect(pending.oldest == nil)
        #expect(pending.waitingIntended.isEmpty)
        #expect(pending.pop() == nil)
        #expect(pending.drain().isEmpty)
        pending.push(intended: 60, actual: 61)
        #expect(pending.drain() == [60])
    }

    /// Twenty thousand more pushes than pops, interleaved (two pops for every three pushes), so the log compacts
    /// its storage several times while never running empty; every pop and every peek agrees with the model.
    @Test func staysInOrderAcrossCompaction() {
        var pending = PendingSends()
        var model = Model()
        for step: UInt64 in 0..<60_000 {
            let entry = (intended: step * 1_000, actual: step * 1_000 + step % 7)
            pending.push(intended: entry.intended, actual: entry.actual)
            model.entries.append(entry)
            if step % 3 != 0 {
                let popped = pending.pop()
                let expected = model.pop()
                #expect(popped?.intended == expected?.intended && popped?.actual == expected?.actual)
                if popped?.intended != expected?.intended { return }
            }
            if step % 4_999 == 0 {
                #expect(pending.count == model.count)
                #expect(pending.oldest?.intended == model.entries[model.head].intended)
            }
        }
        Self.expectAgreement(pending, model)
        #expect(pending.count == 20_000)

        // Pop everything but a few, across further compactions, then drain the rest.
        while model.count > 3 {
            let popped = pending.pop()
            let expected = model.pop()
            #expect(popped?.intended == expected?.intended && popped?.actual == expected?.actual)
            if popped?.intended != expected?.intended { return }
        }
        Self.expectAgreement(pending, model)
        #expect(pending.drain() == model.waiting)
        #expect(pending.count == 0)
    }

    /// A log that runs empty after almost every pop (the other way its storage is reset) keeps working.
    @Test func staysInOrderWhenRepeatedlyRunningEmpty() {
        var pending = PendingSends()
        var model = Model()
        for step: UInt64 in 0..<12_000 {
            pending.push(intended: step, actual: step + 1)
            model.entries.append((step, step + 1))
            let pops = step % 5 == 4 ? 2 : step % 5 == 0 ? 0 : 1
            for _ in 0..<pops {
                let popped = pending.pop()
                let expected = model.pop()
                #expect(popped?.intended == expected?.intended && popped?.actual == expected?.actual)
            }
            if step % 1_000 == 999 { Self.expectAgreement(pending, model) }
        }
        Self.expectAgreement(pending, model)
    }
}
