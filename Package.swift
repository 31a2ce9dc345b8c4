// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "motion-server",
    products: [
        .library(name: "MotionCore", targets: ["MotionCore"]),
        .library(name: "MotionSimulation", targets: ["MotionSimulation"]),
        .library(name: "MotionClient", targets: ["MotionClient"]),
        .library(name: "MotionClientLinux", targets: ["MotionClientLinux"]),
        .executable(name: "motion-server", targets: ["motion-server"]),
        .executable(name: "motion-demo", targets: ["motion-demo"]),
        .executable(name: "motion-load", targets: ["motion-load"]),
    ],
    targets: [
        // Pure Swift, no system library: what the client library's modules need of the base (Basics re-exports it).
        .target(name: "PortableBasics", swiftSettings: strict),
        .target(name: "Basics", dependencies: ["PortableBasics"], swiftSettings: strict),
        .target(name: "MotionCore", swiftSettings: strict),
        // The system's time-zone database (TZif files, RFC 8536): offsets and civil days in IANA zones, no Foundation.
        .target(name: "ZoneInfo", dependencies: ["PortableBasics", "Basics"], swiftSettings: strict),
        .target(name: "MotionSimulation", dependencies: ["MotionCore", "Basics"], swiftSettings: strict),
        .target(name: "CNetShim"),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        .target(name: "MotionWire", dependencies: ["MotionCore", "PortableBasics"], swiftSettings: strict),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(
            name: "SessionStore", dependencies: ["Basics", "MotionCore", "CSQLite", "CLibPQ"], swiftSettings: strict),
        .executableTarget(
            name: "store-bench", dependencies: ["SessionStore", "MotionCore"], path: "bench/store",
            swiftSettings: strict),
        .target(name: "HTTPWire", dependencies: ["CZlib", "COpenSSL", "Basics"], swiftSettings: strict),
        // The event loop and what runs on it: epoll loops (Swift executors), timers and clocks, sockets, TLS.
        .target(name: "NetCore", dependencies: ["Basics", "CNetShim", "COpenSSL"], swiftSettings: strict),
        // A WebSocket connection on the loop, what the server's and the client's share (RFC 6455, permessage-deflate).
        .target(
            name: "WebSocketCore", dependencies: ["Basics", "HTTPWire", "NetCore", "CNetShim"], swiftSettings: strict),
        // Opens WebSocket connections from this process (ws://, wss://): MotionClientLinux, the tests, the benchmarks.
        .target(
            name: "WebSocketClient", dependencies: ["Basics", "HTTPWire", "NetCore", "WebSocketCore", "CNetShim"],
            swiftSettings: strict),
        .target(
            name: "HTTPServer",
            dependencies: ["Basics", "HTTPWire", "NetCore", "WebSocketCore", "CNetShim", "COpenSSL"],
            swiftSettings: strict),
        // The client library for apps: MotionSession's surface, served by the server over a transport the app gives.
        // Portable: neither it nor its dependencies import Glibc or use epoll (tools/check-portable-client.py).
        .target(name: "MotionClient", dependencies: ["MotionCore", "MotionWire"], swiftSettings: strict),
        // MotionClient's transport on Linux: the project's WebSocket client on an event loop of its own.
        .target(
            name: "MotionClientLinux",
            dependencies: ["MotionClient", "HTTPWire", "NetCore", "WebSocketCore", "WebSocketClient"],
            swiftSettings: strict),
        .target(
            name: "LoadKit", dependencies: ["Basics", "NetCore", "HTTPWire", "CNetShim"], swiftSettings: strict),
        .target(
            name: "MotionServer",
            dependencies: [
                "Basics", "MotionCore", "MotionWire", "MotionSimulation", "HTTPWire", "HTTPServer", "SessionStore",
                "PortableBasics", "ZoneInfo",
            ],
            swiftSettings: strict, plugins: ["EmbedFiles"]),
        // Build tool: a target's .json files (MotionServer's openapi.json) as Swift constants, no Foundation at run time.
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["embed-files"]),
        .executableTarget(name: "embed-files", swiftSettings: strict),
        .executableTarget(
            name: "motion-server", dependencies: ["Basics", "MotionServer", "HTTPServer"], swiftSettings: strict),
        .executableTarget(
            name: "motion-load",
            dependencies: ["Basics", "LoadKit", "NetCore", "MotionCore", "MotionSimulation", "MotionWire"],
            swiftSettings: strict),
        .executableTarget(
            name: "motion-demo",
            dependencies: ["MotionCore", "MotionSimulation", "MotionWire"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "engine-bench",
            dependencies: ["Basics", "MotionCore", "MotionSimulation"],
            path: "bench/engine",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "http-bench-server", dependencies: ["Basics", "HTTPServer", "MotionWire"],
            path: "bench/http-server", swiftSettings: strict),
        .executableTarget(
            name: "wire-bench", dependencies: ["Basics", "MotionWire", "MotionCore", "MotionSimulation"],
            path: "bench/wire", swiftSettings: strict),
        .executableTarget(
            name: "ws-bench-client",
            dependencies: ["Basics", "NetCore", "WebSocketCore", "WebSocketClient", "HTTPWire", "LoadKit"],
            path: "bench/ws-client",
            swiftSettings: strict),
        .testTarget(
            name: "MotionCoreTests", dependencies: ["MotionCore", "MotionSimulation"], exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(name: "MotionSimulationTests", dependencies: ["MotionSimulation"], swiftSettings: strict),
        .testTarget(
            name: "MotionWireTests", dependencies: ["MotionWire", "MotionCore", "MotionSimulation", "Basics"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "SessionStoreTests", dependencies: ["SessionStore", "MotionCore", "Basics", "PostgresTestSupport"],
            swiftSettings: strict),
        // Test helper: a private PostgreSQL server (initdb, pg_ctl) and a fresh database per test.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresSupport", swiftSettings: strict),
        .testTarget(name: "HTTPWireTests", dependencies: ["HTTPWire", "Basics"], swiftSettings: strict),
        .testTarget(name: "BasicsTests", dependencies: ["Basics"], swiftSettings: strict),
        .testTarget(name: "ZoneInfoTests", dependencies: ["ZoneInfo", "PortableBasics"], swiftSettings: strict),
        .testTarget(name: "EmbedFilesTests", swiftSettings: strict, plugins: ["EmbedFiles"]),
        .testTarget(
            name: "MotionLoadTests",
            dependencies: ["motion-load", "Basics", "LoadKit", "HTTPServer", "MotionServer", "MotionCore"],
            swiftSettings: strict),
        .testTarget(
            name: "LoadKitTests", dependencies: ["LoadKit", "HTTPServer", "HTTPWire", "NetworkTestSupport"],
            swiftSettings: strict),
        // Test helper: a process that writes checkpoints and waits to be killed (SessionStoreTests/CrashRecoveryTests).
        .executableTarget(
            name: "store-crash-probe", dependencies: ["SessionStore", "MotionCore"], path: "Tests/store-crash-probe",
            swiftSettings: strict),
        .target(
            name: "NetworkTestSupport", dependencies: ["HTTPServer", "HTTPWire"], path: "Tests/Support",
            swiftSettings: strict),
        .testTarget(
            name: "MotionServerTests",
            dependencies: [
                "MotionServer", "MotionCore", "MotionSimulation", "SessionStore", "HTTPServer", "HTTPWire",
                "WebSocketClient", "NetworkTestSupport", "PostgresTestSupport", "ZoneInfo",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MotionClientTests",
            dependencies: [
                "MotionClient", "MotionClientLinux", "MotionServer", "MotionCore", "MotionWire", "MotionSimulation",
                "HTTPServer", "HTTPWire", "NetworkTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", "HTTPWire", "NetCore", "WebSocketClient", "NetworkTestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
