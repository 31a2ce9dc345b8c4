import Foundation
import HTTPServer
import MotionServer
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

    @Test func servesTheFileByteForByte() async throws {
        let (document, _) = try await Self.servedDocumentAndRoutes()
        #expect(document == Array(try Data(contentsOf: Self.file)))
    }
}
