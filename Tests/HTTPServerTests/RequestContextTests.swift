import HTTPServer
import HTTPWire
import Testing

@Suite("Request context")
struct RequestContextTests {
    struct Identity: Sendable, Equatable, RequestContextKey {
        typealias Value = Identity
        var name: String
        var level: Int
    }

    enum Trace: RequestContextKey { typealias Value = String }
    enum Other: RequestContextKey { typealias Value = String }
    enum Path: RequestContextKey { typealias Value = [String] }

    static func request() throws -> HTTPRequest {
        HTTPRequest(
            head: HTTPRequestHead(
                method: .get, target: try HTTPRequestTarget(parsing: "/"), version: .http11, headers: HTTPHeaders(),
                host: "x", keepAlive: true, expectsContinue: false, isUpgrade: false, bodyFraming: .noBody))
    }

    @Test func aRequestStartsEmpty() throws {
        let request = try Self.request()
        #expect(request.context[Trace.self] == nil)
        #expect(request.context[Identity.self] == nil)
    }

    /// Each key reads back its own value with its own type; two keys of one value type never meet.
    @Test func valuesReadBackTypedUnderTheirOwnKeys() {
        var context = RequestContext()
        context[Identity.self] = Identity(name: "clinic-1", level: 2)
        context[Trace.self] = "a"
        context[Other.self] = "b"
        context[Path.self] = ["x", "y", "z"]
        #expect(context[Identity.self] == Identity(name: "clinic-1", level: 2))
        #expect(context[Trace.self] == "a")
        #expect(context[Other.self] == "b")
        #expect(context[Path.self] == ["x", "y", "z"])
    }

    /// Assigning replaces, nil removes, whichever value was stored first.
    @Test(arguments: [0, 1, 2])
    func valuesAreReplacedAndRemoved(removed: Int) {
        var context = RequestContext()
        context[Trace.self] = "trace"
        context[Other.self] = "other"
        context[Identity.self] = Identity(name: "n", level: 1)
        context[Other.self] = "again"
        #expect(context[Other.self] == "again")
        switch removed {
        case 0: context[Trace.self] = nil
        case 1: context[Other.self] = nil
        default: context[Identity.self] = nil
        }
        #expect((context[Trace.self] == nil) == (removed == 0))
        #expect((context[Other.self] == nil) == (removed == 1))
        #expect((context[Identity.self] == nil) == (removed == 2))
        context[Trace.self] = "back"
        #expect(context[Trace.self] == "back")
        context[Trace.self] = nil
        context[Other.self] = nil
        context[Identity.self] = nil
        #expect(context[Trace.self] == nil && context[Other.self] == nil && context[Identity.self] == nil)
        context[Other.self] = "only"
        #expect(context[Other.self] == "only")
    }

    /// A copy of a request keeps what was stored; changing one changes only it.
    @Test func copiesAreIndependent() throws {
        var request = try Self.request()
        request.context[Trace.self] = "first"
        var copy = request
        copy.context[Trace.self] = "second"
        copy.context[Other.self] = "more"
        #expect(request.context[Trace.self] == "first")
        #expect(request.context[Other.self] == nil)
        #expect(copy.context[Trace.self] == "second")
    }
}
