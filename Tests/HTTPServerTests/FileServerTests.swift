import Foundation
import HTTPServer
import HTTPWire
import Testing

/// A temporary public directory with a secret file beside it and a symlink pointing at the secret.
struct PublicDirectory {
    let base: String
    var root: String { base + "/public" }

    init() throws {
        base = NSTemporaryDirectory() + "files-\(UUID().uuidString)"
        let fm = FileManager.default
        try fm.createDirectory(atPath: base + "/public/sub", withIntermediateDirectories: true)
        try "top secret".write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
        try "<h1>home</h1>".write(toFile: root + "/index.html", atomically: true, encoding: .utf8)
        try "<h1>sub</h1>".write(toFile: root + "/sub/index.html", atomically: true, encoding: .utf8)
        try String(repeating: "let x = 1;\n", count: 500).write(
            toFile: root + "/app.js", atomically: true, encoding: .utf8)
        try "hidden".write(toFile: root + "/.env", atomically: true, encoding: .utf8)
        try Data(Gzip.compress(Array("body{}".utf8))).write(to: URL(fileURLWithPath: root + "/style.css.gz"))
        try "body{}".write(toFile: root + "/style.css", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: root + "/leak", withDestinationPath: base + "/secret.txt")
        try fm.createSymbolicLink(atPath: root + "/inside", withDestinationPath: root + "/app.js")
    }

    func remove() { try? FileManager.default.removeItem(atPath: base) }
}

/// Serves a fresh ``PublicDirectory`` with a `FileServer` and no routes for one test.
func withFileServer(_ body: (SocketAddress) async throws -> Void) async throws {
    let directory = try PublicDirectory()
    defer { directory.remove() }
    let files = try FileServer(root: directory.root)
    let handler: Router.Handler = { try await files.respond(to: $0) }
    try await withServer(router: Router(), fallback: handler) { address, _ in try await body(address) }
}

@Suite("Static files")
struct FileServerTests {
    static let traversals = [
        "GET /../secret.txt", "GET /%2e%2e/secret.txt", "GET /%2E%2E%2Fsecret.txt", "GET /sub/../../secret.txt",
        "GET /.env", "GET /leak", "GET /%00", "GET /index.html%00.js", "GET /..%5csecret.txt",
        "GET /sub/%2e%2e/%2e%2e/secret.txt",
        "GET http://x/../secret.txt",
    ]

    @Test(arguments: traversals)
    func neverLeavesTheDirectory(requestLine: String) async throws {
        try await withFileServer { address in
            let client = try TestClient(address)
            client.send("\(requestLine) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect([400, 404].contains(response.status), "\(requestLine) → \(response.status)")
            #expect(!response.text.contains("top secret"))
        }
    }

    @Test func servesIndexTypesAndRedirectsDirectories() async throws {
        try await withFileServer { address in
            let client = try TestClient(address)
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let home = try #require(client.readResponse())
            #expect(home.text == "<h1>home</h1>")
            #expect(home.header("Content-Type") == "text/html; charset=utf-8")
            client.send("GET /sub?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            let redirect = try #require(client.readResponse())
            #expect(redirect.status == 301)
            #expect(redirect.header("Location") == "/sub/?x=1")
            client.send("GET /inside HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.status == 200, "symlinks that stay inside are served")
            client.send("GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n")
            let script = try #require(client.readResponse())
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(script.header("Cache-Control") == "no-cache")
            #expect(script.body.count == 5500)
        }
    }

    @Test func answers304ForMatchingValidators() async throws {
        try await withFileServer { address in
            let client = try TestClient(address)
            client.send("GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try #require(client.readResponse())
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            client.send("GET /app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"other\", \(etag)\r\n\r\n")
            let byTag = try #require(client.readResponse())
            #expect(byTag.status == 304)
            #expect(byTag.body.isEmpty)
            #expect(byTag.header("ETag") == etag)
            client.send("GET /app.js HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: \(modified)\r\n\r\n")
            #expect(client.readResponse()?.status == 304)
            client.send("GET /app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"stale\"\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
        }
    }

    @Test func sendsPrecompressedFilesOnlyToClientsThatAcceptGzip() async throws {
        try await withFileServer { address in
            let client = try TestClient(address)
            client.send("GET /style.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let zipped = try #require(client.readResponse())
            #expect(zipped.header("Content-Encoding") == "gzip")
            #expect(zipped.header("Content-Type") == "text/css; charset=utf-8")
            #expect(try Gzip.decompress(zipped.body, limit: 100) == Array("body{}".utf8))
            client.send("GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n")
            let plain = try #require(client.readResponse())
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.text == "body{}")
        }
    }

    @Test func refusesWritesAndAMissingRoot() async throws {
        #expect(throws: FileServer.InvalidRoot.self) { _ = try FileServer(root: "/nonexistent/dir") }
        try await withFileServer { address in
            let client = try TestClient(address)
            client.send("PUT /app.js HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            // A body for the files is never read: they answer on the head alone (HTTPPipeline.screen), and the
            // connection closes after the answer.
            for (line, status) in [("PUT /app.js", 405), ("GET /app.js", 200), ("POST /missing.js", 405)] {
                let writer = try TestClient(address)
                writer.send("\(line) HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
                let answer = try #require(writer.readResponse(), "\(line) answered without its body")
                #expect(answer.status == status, "\(line)")
                #expect(answer.header("Connection") == "close")
            }
        }
    }
}
