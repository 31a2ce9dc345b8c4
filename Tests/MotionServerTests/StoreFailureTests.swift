import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import NetworkTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// A store whose every call fails, as a database that cannot be reached does.
struct FailingStore: SessionStore {
    struct Down: Error {}

    func create(_ session: StoredSession) async throws { throw Down() }
    func create(_ sessions: [StoredSession]) async throws -> [SessionID: SessionStoreError] { throw Down() }
    func checkpoint(id: SessionID, tenant: String, summary: SessionSummary) async throws { throw Down() }
    func checkpoint(_ batch: [SessionCheckpoint]) async throws -> [SessionID: SessionStoreError] { throw Down() }
    func finish(
        id: SessionID, tenant: String, summary: SessionSummary, status: SessionStatus, endedAt: Int64
    )
        async throws
    { throw Down() }
    func session(id: SessionID, tenant: String) async throws -> StoredSession? { throw Down() }
    func engineState(id: SessionID, tenant: String) async throws -> (state: [UInt8], t: Double?)? { throw Down() }
    func resumePoint(id: SessionID, tenant: String) async throws -> ResumePoint? { throw Down() }
    func liveSessions() async throws -> [LiveSessionEntry] { throw Down() }
    func abandon(id: SessionID, tenant: String) async throws -> Bool { throw Down() }
    func series(id: SessionID, tenant: String) async throws -> ValueSeries? { throw Down() }
    func motion(id: SessionID, tenant: String) async throws -> MotionSeries? { throw Down() }
    func list(_ query: SessionQuery) async throws -> SessionPage { throw Down() }
    func count(_ query: SessionQuery) async throws -> Int { throw Down() }
    func renderSummaries(after: SessionID?, limit: Int) async throws -> (rendered: Int, next: SessionID?) {
        throw Down()
    }
    func progress(_ query: ProgressQuery) async throws -> ProgressPage { throw Down() }
    func delete(id: SessionID, tenant: String) async throws -> Bool { throw Down() }
    var node: String { "failing" }
    func abandonLiveSessions(updatedBefore cutoff: Int64, except holders: Set<String>) async throws -> Int {
        throw Down()
    }
    func claim(id: SessionID, tenant: String, from holder: String?) async throws -> Bool { throw Down() }
    func release(id: SessionID, tenant: String) async throws -> Bool { throw Down() }
    func liveNodes(heartbeatSince cutoff: Int64) async throws -> Set<String> { throw Down() }
    func setConnected(_ connected: Bool, id: SessionID, tenant: String) async throws { throw Down() }
    func connected(_ ids: [SessionID], tenant: String) async throws -> [SessionID: Bool] { throw Down() }
    func saveExercise(
        id: String, tenant: String, as write: ExerciseWrite, quota: ExerciseQuota,
        definition: @Sendable (Int) -> String
    ) async throws -> StoredExercise { throw Down() }
    func currentExercises(tenant: String?) async throws -> [StoredExercise] { throw Down() }
    func exercise(id: String, tenant: String, version: Int?) async throws -> StoredExercise? { throw Down() }
    func deleteExercise(id: String, tenant: String) async throws -> Int? { throw Down() }
    func saveProgramme(
        _ draft: ProgrammeDraft, as write: ExerciseWrite, maxVersions: Int, definition: @Sendable (Int) -> String
    ) async throws -> StoredProgramme { throw Down() }
    func programme(id: String, tenant: String, version: Int?) async throws -> StoredProgramme? { throw Down() }
    func programmes(_ query: ProgrammeQuery) async throws -> ProgrammePage { throw Down() }
    func endProgramme(id: String, tenant: String) async throws -> Bool { throw Down() }
    func createAccessCode(_ code: StoredAccessCode, maxPerSubject: Int) async throws { throw Down() }
    func accessCodes(tenant: String?, subject: String?) async throws -> [StoredAccessCode] { throw Down() }
    func revokeAccessCode(id: String, tenant: String, subject: String) async throws -> StoredAccessCode? {
        throw Down()
    }
    func probe() async throws { throw Down() }
    func close() async {}
}

@Suite("A failing store on the REST routes")
struct StoreFailureTests {
    static let start = #"{"exercise":"elbowFlexion","side":"right"}"#

    /// Every REST route that reaches the store, with the `motion_store_errors_total` operation it counts.
    static let routes: [(method: String, path: String, body: String, operation: String)] = {
        let id = SessionID.generate(at: 1_700_000_000_000).description
        return [
            ("POST", "/v1/sessions", start, "create"),
            ("POST", "/v1/analyze", #"{"exercise":"elbowFlexion","side":"right","frames":[]}"#, "create"),
            ("GET", "/v1/sessions", "", "list"),
            ("GET", "/v1/sessions/\(id)", "", "get"),
            ("GET", "/v1/sessions/\(id)?format=csv", "", "get"),
            ("GET", "/v1/sessions/\(id)/series", "", "series"),
            ("GET", "/v1/subjects/patient-17/progress?exercise=squat", "", "progress"),
            ("DELETE", "/v1/sessions/\(id)", "", "delete"),
            ("POST", "/v1/sessions/\(id)/poses", #"{"frames":[]}"#, "get"),
            ("POST", "/v1/sessions/\(id)/stop", "", "get"),
            ("POST", "/v1/exercises", custom.replacingOccurrences(of: "\"custom\"", with: "\"other\""), "saveExercise"),
            ("PUT", "/v1/exercises/custom", custom.replacingOccurrences(of: "55", with: "60"), "saveExercise"),
            ("DELETE", "/v1/exercises/custom", "", "deleteExercise"),
            ("GET", "/v1/exercises/custom/versions/1", "", "getExercise"),
            ("POST", "/v1/sessions", #"{"programme":{"id":"\#(id)","item":"a1"}}"#, "getProgramme"),
            ("POST", "/v1/programmes", programme, "saveProgramme"),
            ("GET", "/v1/programmes?subject=p", "", "listProgrammes"),
            ("GET", "/v1/programmes/\(id)", "", "getProgramme"),
            ("PUT", "/v1/programmes/\(id)", programme, "getProgramme"),
            ("DELETE", "/v1/programmes/\(id)", "", "getProgramme"),
            ("GET", "/v1/subjects/patient-17/adherence", "", "listProgrammes"),
            ("POST", "/v1/subjects/patient-17/access", "", "createAccessCode"),
            ("GET", "/v1/subjects/patient-17/access", "", "listAccessCodes"),
            ("DELETE", "/v1/subjects/patient-17/access/\(id)", "", "revokeAccessCode"),
        ]
    }()

    /// A programme the exercise checks accept (docs/protocol.md §5.3).
    static let programme =
        #"{"subject":"p","startsOn":"2026-12-07","items":[{"item":"a1","exercise":"squat","prescription":{"reps":5}}]}"#

    /// A custom exercise the library holds (as loaded at start), so that its routes reach the store.
    static let custom =
        #"{"id":"custom","name":"Custom","view":"sagittal","kind":"rep","#
        + #""measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},"#
        + #""thresholds":{"rest":25,"enter":55,"exit":35},"target":120}"#

    @Test(arguments: routes)
    func answers503StoreUnavailableAndCountsTheFailure(
        route: (method: String, path: String, body: String, operation: String)
    ) async throws {
        let metrics = ServerMetrics()
        let exercises = ExerciseLibrary()
        exercises.stored(try ExerciseDefinition.decode(Array(Self.custom.utf8)), tenant: "default")
        let context = AppContext(
            store: FailingStore(), tokens: nil, logger: Logger(level: .error), limits: LiveLimits(),
            metrics: metrics, clock: { 1_700_000_000_000 }, exercises: exercises)
        var router = Router()
        SessionRoutes(context: context).add(to: &router)
        ExerciseRoutes(context: context).add(to: &router)
        ProgrammeRoutes(context: context).add(to: &router)
        AccessRoutes(context: context).add(to: &router)
        let configuration = testConfiguration { $0.errorRenderer = REST.errorRenderer }
        try await withTestServer(
            configuration, router: router,
            middleware: [RequestMetrics(metrics: metrics), Authentication(context: context)]
        ) { address, _ in
            let response = try #require(
                try await request(address, route.method, route.path, body: route.body), "\(route.path)")
            #expect(response.status == 503, "\(route.method) \(route.path)")
            #expect(response.header("Retry-After") == "1")
            #expect(response.header("Content-Type") == "application/json")
            #expect(
                response.text
                    == #"{"error":{"code":"storeUnavailable","message":"the session store failed; try again"}}"#)
        }
        let text = metrics.render(http: HTTPMetrics().snapshot, webSockets: 0, httpSessions: 0, storeFailing: true)
        #expect(text.contains(#"motion_store_errors_total{operation="\#(route.operation)"} 1"#), "\(text)")
        #expect(context.httpSessions.count == 0, "a session whose row could not be stored is not kept open")
    }
}

/// `/metrics` of a node sharing its database: every sample carries the node's name (docs/protocol.md §8).
@Suite struct NodeMetricsTests {
    @Test func everySampleIsLabelledWithTheNode() {
        let metrics = ServerMetrics()
        metrics.countRequest(route: "/v1/sessions", status: 200)
        let plain = metrics.render(http: HTTPMetrics().snapshot, webSockets: 3, httpSessions: 1, storeFailing: false)
        let text = metrics.render(
            http: HTTPMetrics().snapshot, webSockets: 3, httpSessions: 1, storeFailing: false, node: #"node-"1""#)
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.count == plain.split(separator: "\n").filter { !$0.hasPrefix("#") }.count)
        #expect(!samples.isEmpty)
        for sample in samples { #expect(sample.contains(#"node="node-\"1\"""#), "\(sample)") }
        #expect(text.contains(#"motion_websocket_connections{node="node-\"1\""} 3"#))
        #expect(text.contains(#"motion_http_requests_total{node="node-\"1\"",route="/v1/sessions",status="200"} 1"#))
        #expect(!plain.contains("node="), "a node alone is not labelled")
    }
}
