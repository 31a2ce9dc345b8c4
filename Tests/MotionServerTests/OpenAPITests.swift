import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionWire
import NetworkTestSupport
import Testing

/// The OpenAPI document against the application's real route table: every route documented with its path and
/// method spelled as routed (`{id}`), every documented operation routed, and the served document exactly the file.
@Suite("OpenAPI document")
struct OpenAPITests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/MotionServer/REST/openapi.json")

    /// The served document and the routes of a server with every optional route mounted (`--ws-echo`).
    static func servedDocumentAndRoutes() async throws -> (document: [UInt8], routes: [RegisteredRoute]) {
        var result: ([UInt8], [RegisteredRoute])?
        try await withMotionServer(webSocketEcho: true) { address, server, _ in
            let response = try #require(try await request(address, "GET", "/openapi.json"))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            result = (response.body, server.routes)
        }
        return try #require(result)
    }

    /// `"get /v1/sessions/{id}"` for every operation of the document.
    static func operations(of document: [UInt8]) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
        #expect(object["openapi"] as? String == "3.1.0")
        let paths = try #require(object["paths"] as? [String: [String: Any]])
        return Set(paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0) \(path)" } })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() async throws {
        let (document, routes) = try await Self.servedDocumentAndRoutes()
        let routed = Set(routes.map { "\($0.method.rawValue.lowercased()) \($0.route.pattern)" })
        #expect(routed.count == routes.count, "a route is registered twice")
        #expect(routed.contains("get /v1/sessions/{id}/watch") && routed.contains("get /v1/echo"))
        let documented = try Self.operations(of: document)
        #expect(routed.subtracting(documented).sorted() == [], "routed but not in openapi.json")
        #expect(documented.subtracting(routed).sorted() == [], "in openapi.json but not routed")
    }

    @Test func webSocketRoutesAreDocumentedAsUpgrades() async throws {
        let (document, routes) = try await Self.servedDocumentAndRoutes()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
        let paths = try #require(object["paths"] as? [String: [String: Any]])
        let webSockets = routes.filter(\.route.isWebSocket)
        #expect(webSockets.count >= 3)
        for entry in webSockets {
            let operation = paths[entry.route.pattern]?["get"] as? [String: Any]
            let responses = operation?["responses"] as? [String: Any]
            #expect(responses?["101"] != nil, "\(entry.route.pattern) documents no 101 Switching Protocols")
        }
    }

    /// A body over `--max-message-bytes` (or a definition over its own bound) is `413` on every operation that takes
    /// one.
    @Test func everyOperationWithABodyDocumentsThe413() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.file)) as? [String: Any])
        let paths = try #require(object["paths"] as? [String: [String: Any]])
        var withBodies: [String] = []
        var missing: [String] = []
        for (path, item) in paths {
            for (method, value) in item where Self.methods.contains(method) {
                guard let operation = value as? [String: Any], operation["requestBody"] != nil else { continue }
                withBodies.append("\(method) \(path)")
                if (operation["responses"] as? [String: Any])?["413"] == nil { missing.append("\(method) \(path)") }
            }
        }
        #expect(withBodies.count >= 7)
        #expect(missing.sorted() == [], "operations with a body that document no 413")
    }

    @Test func exerciseWritesDocumentTheirRefusalsAndErrorsTheirPointer() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.file)) as? [String: Any])
        let paths = try #require(object["paths"] as? [String: [String: Any]])
        func responses(_ method: String, _ path: String) -> Set<String> {
            let operation = paths[path]?[method] as? [String: Any]
            return Set((operation?["responses"] as? [String: Any])?.keys.map { $0 } ?? [])
        }
        #expect(responses("post", "/v1/exercises").isSuperset(of: ["201", "400", "409", "413", "415", "422", "503"]))
        #expect(responses("put", "/v1/exercises/{id}").isSuperset(of: ["200", "404", "409", "413", "422", "503"]))
        #expect(responses("delete", "/v1/exercises/{id}").isSuperset(of: ["204", "404", "409", "503"]))
        #expect(responses("get", "/v1/exercises/{id}/versions/{version}").isSuperset(of: ["200", "404"]))
        let components = try #require(object["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let error = (schemas["Error"] as? [String: Any])?["properties"] as? [String: Any]
        let fields = (error?["error"] as? [String: Any])?["properties"] as? [String: Any]
        #expect(fields?["pointer"] != nil)
        let definition = try #require(schemas["ExerciseDefinition"] as? [String: Any])
        #expect(definition["additionalProperties"] as? Bool == false, "unknown members are refused")
        let members = try #require(definition["properties"] as? [String: Any])
        var encoded: [UInt8] = []
        WireEncoder.encodeExercise(.elbowFlexion, into: &encoded)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: Any])
        #expect(Set(entry.keys) == Set(members.keys), "the schema names every member GET shows")
    }

    @Test func servesTheFileByteForByte() async throws {
        let (document, _) = try await Self.servedDocumentAndRoutes()
        #expect(document == Array(try Data(contentsOf: Self.file)))
    }
}
