import HTTPServer
import Testing

@Suite struct ConnectionBudgetTests {
    @Test func defaultsBoundAConnectionToItsReadAheadOutputAndKernelShare() {
        let budget = ConnectionBudget()
        #expect(budget.readAheadBytes == 64 * 1024)
        #expect(budget.pendingOutputBytes == 4 << 20)
        #expect(budget.kernelUnsentBytes == 64 * 1024)
        #expect(budget.totalBytes == (4 << 20) + 128 * 1024)
    }

    @Test func readRoomIsWhatTheReadAheadLeavesAndNeverNegative() {
        let budget = ConnectionBudget(readAheadBytes: 100, pendingOutputBytes: 10, kernelUnsentBytes: 1)
        #expect(budget.readRoom(holding: 0) == 100)
        #expect(budget.readRoom(holding: 60) == 40)
        #expect(budget.readRoom(holding: 100) == 0)
        #expect(budget.readRoom(holding: 250) == 0, "input past the bound (a TLS record) leaves no room, not less")
    }

    @Test func outputIsOverOnlyPastTheBound() {
        let budget = ConnectionBudget(readAheadBytes: 1, pendingOutputBytes: 10, kernelUnsentBytes: 1)
        #expect(!budget.isOverOutput(0))
        #expect(!budget.isOverOutput(10))
        #expect(budget.isOverOutput(11))
    }

    @Test func theServersBudgetIsWhatItsConfigurationCarries() {
        var configuration = HTTPServerConfiguration()
        #expect(configuration.budget == ConnectionBudget())
        configuration.budget.pendingOutputBytes = 1024
        #expect(configuration.budget.totalBytes == 1024 + 128 * 1024)
    }
}
