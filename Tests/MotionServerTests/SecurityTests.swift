import Foundation
import HTTPServer
import HTTPWire
import MotionServer
import NetworkTestSupport
import Testing

/// Authentication decided on the matched route, operator-only metrics, bounded metric labels and HTTP sessions.
@Suite("motion-server security")
struct SecurityTests {
    static let tokens = """
        alice-token-0123456789 alice
        bob-token-0123456789ab bob
        ops-token-0123456789abc ops operator
        """

    static let spellings = [
        ("GET", "/metrics"), ("GET", "//metrics"), ("GET", "/metrics/"), ("GET", "//openapi.json"),
        ("GET", "/v1/sessions"), ("GET", "//v1/sessions"), ("GET", "/v1//sessions"), ("GET", "/v1/sessions/"),
        ("POST", "//v1/sessions"), ("POST", "//v1/analyze"), ("GET", "/v1/exercises"), ("GET", "/v1/stream"),
        ("DELETE", "//v1/sessions/x"), ("PUT", "/v1/sessions"),
    ]

    @Test func noSpellingOfAProtectedPathOrUpgradeHeaderSkipsAuthentication() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let upgrades = [
                "", "Connection: Upgrade\r\nUpgrade: x\r\n", "Connection: upgrade\r\nUpgrade: websocket\r\n",
            ]
            for (method, path) in Self.spellings {
                for upgrade in upgrades {
                    let response = try await request(
                        address, method, path, headers: upgrade, body: method == "POST" ? #"{"exercise":"squat"}"# : "")
                    #expect(response?.status == 401, "\(method) \(path) \(upgrade.debugDescription)")
                }
            }
            for token in ["alice-token-0123456789", "bob-token-0123456789ab"] {
                let list = try await request(address, "GET", "/v1/sessions", token: token)
                #expect(list?.text == #"{"sessions":[],"next":null}"#, "nothing was stored anonymously")
            }
            #expect(try await request(address, "GET", "//healthz/")?.status == 200)
            #expect(try await request(address, "GET", "/readyz")?.status == 200)
        }
    }

    /// A request offers one credential: two `Authorization` fields (RFC 9110 §5.3: not a list), a header and a
    /// `bearer.` subprotocol naming another token, or two such subprotocols, are refused rather than read as the
    /// first; the same token twice is one credential.
    @Test func refusesAmbiguousCredentials() async throws {
        let alice = "alice-token-0123456789"
        let bob = "bob-token-0123456789ab"
        for tokens in [Self.tokens, nil] {
            try await withMotionServer(tokens: tokens, webSocketEcho: true) { address, _, _ in
                let host = "127.0.0.1:\(address.port)"
                for fields in [
                    "Authorization: Bearer \(alice)\r\nAuthorization: Bearer \(bob)\r\n",
                    "Authorization: Bearer \(alice)\r\nAuthorization: Bearer \(alice)\r\n",
                    "Authorization: Bearer \(alice)\r\nauthorization: Basic eDp5\r\n",
                ] {
                    let response = try await BrowserRulesTests.get(address, "/v1/sessions", host: host, fields: fields)
                    #expect(response?.status == 400, "\(fields.debugDescription)")
                    #expect(response?.text.contains(#""code":"ambiguousCredentials""#) == true)
                }
                for fields in [
                    "Authorization: Bearer \(alice)\r\nSec-WebSocket-Protocol: bearer.\(bob)\r\n",
                    "Sec-WebSocket-Protocol: bearer.\(alice), bearer.\(bob)\r\n",
                    "Sec-WebSocket-Protocol: bearer.\(alice)\r\nSec-WebSocket-Protocol: bearer.\(bob)\r\n",
                ] {
                    for path in ["/v1/stream", "/v1/echo"] {
                        let response = try await BrowserRulesTests.handshake(address, path, host: host, fields: fields)
                        #expect(response?.status == 400, "\(path) \(fields.debugDescription)")
                        #expect(response?.text.contains(#""code":"ambiguousCredentials""#) == true)
                    }
                }
                let same = try await BrowserRulesTests.handshake(
                    address, "/v1/stream", host: host,
                    fields: "Authorization: Bearer \(alice)\r\nSec-WebSocket-Protocol: bearer.\(alice)\r\n")
                #expect(same?.status == 101, "one token, offered twice")
                #expect(same?.header("Sec-WebSocket-Protocol") == "bearer.\(alice)")
                let one = try await BrowserRulesTests.get(
                    address, "/v1/sessions", host: host, fields: "Authorization: Bearer \(alice)\r\n")
                #expect(one?.status == 200)
            }
        }
    }

    /// `subject` is at most 256 bytes of UTF-8 (and 128 scalars) wherever a client gives one: `start` over
    /// WebSocket, `POST /v1/sessions`, `POST /v1/analyze`, and the progress path; 256 bytes of multi-byte scalars
    /// pass, 257 do not.
    @Test(arguments: [
        (String(repeating: "😀", count: 64), String(repeating: "😀", count: 63) + "€é"),
        (String(repeating: "€", count: 85) + "x", String(repeating: "€", count: 85) + "é"),
        (String(repeating: "é", count: 128), String(repeating: "é", count: 127) + "€"),
    ])
    func subjectsAreBoundedAt256BytesOnEveryPath(_ longest: String, _ tooLong: String) async throws {
        #expect(longest.utf8.count == 256)
        #expect(tooLong.utf8.count == 257)
        #expect(tooLong.unicodeScalars.count <= 128)
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            for (subject, accepted) in [(longest, true), (tooLong, false)] {
                let label = "\(subject.utf8.count) bytes"
                let start = #"{"exercise":"squat","subject":"\#(subject)"}"#
                let created = try await request(address, "POST", "/v1/sessions", body: start)
                #expect(created?.status == (accepted ? 201 : 400), "POST /v1/sessions, \(label)")
                let analysis = #"{"exercise":"squat","subject":"\#(subject)","frames":[]}"#
                let analyzed = try await request(address, "POST", "/v1/analyze", body: analysis)
                #expect(analyzed?.status == (accepted ? 200 : 400), "POST /v1/analyze, \(label)")
                if !accepted {
                    #expect(analyzed?.text.contains("at most 128 characters and 256 bytes") == true)
                }
                let escaped = subject.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let progress = try await request(address, "GET", "/v1/subjects/\(escaped)/progress")
                #expect(progress?.status == (accepted ? 200 : 400), "progress, \(label)")

                let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
                socket.send(.text(#"{"type":"start","exercise":"squat","subject":"\#(subject)"}"#))
                await inbox.wait { !$0.messages.isEmpty }
                let reply = inbox.objects().first
                #expect(reply?["type"] as? String == (accepted ? "started" : "error"), "start, \(label)")
                socket.close(code: .normal, reason: "")
            }
        }
    }

    @Test func metricsNeedAnOperatorToken() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let alice = try #require(
                try await request(address, "GET", "//metrics", token: "alice-token-0123456789"))
            #expect(alice.status == 403)
            #expect(alice.text.contains(#""code":"forbidden""#))
            let ops = try #require(try await request(address, "GET", "/metrics", token: "ops-token-0123456789abc"))
            #expect(ops.status == 200)
            #expect(ops.text.contains("motion_http_sessions 0"))
        }
        try await withMotionServer { address, _, _ in
            let open = try await request(address, "GET", "/metrics")
            #expect(open?.status == 200, "no tokens: open, as everything")
        }
    }

    @Test func metricsLabelRoutesNeverRawPaths() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            for index in 0..<50 {
                _ = try await request(address, "GET", "/v1/\(index)-\(String(repeating: "x", count: 2000))")
            }
            _ = try await request(address, "GET", "/v1/x%0D%0Amotion_live_sessions%20999%0D%0A%23")
            _ = try await request(address, "GET", "/v1/sessions/abc", token: "alice-token-0123456789")
            let metrics = try #require(
                try await request(address, "GET", "/metrics", token: "ops-token-0123456789abc"))
            #expect(metrics.body.count < 16 << 10, "\(metrics.body.count) bytes")
            #expect(!metrics.text.contains("xxxx"))
            #expect(!metrics.text.contains("motion_live_sessions 999"))
            #expect(!metrics.body.contains(13), "no carriage return can end a line")
            #expect(metrics.text.contains(#"motion_http_requests_total{route="other",status="404"} 51"#))
            #expect(metrics.text.contains(#"motion_http_requests_total{route="/v1/sessions/{id}",status="404"}"#))
        }
    }

    @Test func labelValuesCannotEndALineAndFamiliesAreBounded() {
        let registry = MetricsRegistry(maxSeriesPerFamily: 3)
        registry.declare("requests_total", help: "Requests.", type: "counter", labels: ["route"])
        registry.add("requests_total", labels: ["a\r\nforged 999\n\"\\\u{85}"])
        for index in 0..<10 { registry.add("requests_total", labels: ["r\(index)"]) }
        let text = registry.render()
        #expect(text.contains(#"requests_total{route="a\#u{FFFD}\nforged 999\n\"\\\#u{FFFD}"} 1"#), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("requests_total") }.count == 3)
        #expect(!text.utf8.contains(13))
    }

    @Test func httpSessionsAreBoundedPerTenantAndInTotal() async throws {
        var limits = fastLimits()
        limits.maxHTTPSessions = 6
        limits.maxHTTPSessionsPerTenant = 4
        try await withMotionServer(tokens: Self.tokens, limits: limits) { address, _, _ in
            func create(_ token: String) async throws -> TestResponse? {
                try await request(address, "POST", "/v1/sessions", token: token, body: #"{"exercise":"squat"}"#)
            }
            var ids: [String] = []
            for _ in 0..<4 {
                let created = try #require(try await create("alice-token-0123456789"))
                #expect(created.status == 201)
                ids.append(try #require(created.header("Location")))
            }
            let refused = try #require(try await create("alice-token-0123456789"))
            #expect(refused.status == 429)
            #expect(refused.text.contains("tooManySessions"))
            #expect(try await create("bob-token-0123456789ab")?.status == 201)
            #expect(try await create("bob-token-0123456789ab")?.status == 201)
            let busy = try #require(try await create("bob-token-0123456789ab"))
            #expect(busy.status == 503)
            #expect(busy.text.contains("serverBusy"))
            let metrics = try await request(address, "GET", "/metrics", token: "ops-token-0123456789abc")
            #expect(metrics?.text.contains("motion_http_sessions 6") == true)
            let stop = try await request(address, "POST", ids[0] + "/stop", token: "alice-token-0123456789")
            #expect(stop?.status == 200)
            #expect(try await create("alice-token-0123456789")?.status == 201, "a stopped session frees its place")
        }
    }

    @Test func tokenFilesNameOperatorsAndRefuseOtherRoles() throws {
        let table = try TokenTable(parsing: "aaaaaaaaaaaaaaaa1 clinic\nbbbbbbbbbbbbbbbb2 ops operator\n")
        #expect(table.grant(for: "aaaaaaaaaaaaaaaa1") == TokenTable.Grant(tenant: "clinic", isOperator: false))
        #expect(table.grant(for: "bbbbbbbbbbbbbbbb2") == TokenTable.Grant(tenant: "ops", isOperator: true))
        #expect(throws: TokenTable.InvalidFile.self) { try TokenTable(parsing: "aaaaaaaaaaaaaaaa1 clinic admin\n") }
        #expect(throws: TokenTable.InvalidFile.self) { try TokenTable(parsing: "aaaaaaaaaaaaaaaa1 a b operator\n") }
    }

    @Test func limitFlagsAreReadAndChecked() throws {
        let options = try ServerOptions.parse(
            arguments: ["--write-timeout", "2.5", "--max-http-sessions=7"],
            environment: ["MOTION_MAX_HTTP_SESSIONS_PER_TENANT": "3"])
        #expect(options.writeTimeout == .milliseconds(2500))
        #expect(options.limits.maxHTTPSessions == 7)
        #expect(options.limits.maxHTTPSessionsPerTenant == 3)
        for bad in [["--write-timeout", "0"], ["--write-timeout", "x"], ["--max-http-sessions", "-1"]] {
            #expect(throws: ServerOptions.UsageError.self) { try ServerOptions.parse(arguments: bad, environment: [:]) }
        }
    }
}
