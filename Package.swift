// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "netquality",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "netquality", targets: ["netquality"]),
    .library(name: "NetQualityCore", targets: ["NetQualityCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    // NIO, its HTTP types bridge and the HTTP types the agent's connection handler uses
    // (already in the graph through Hummingbird; named here because the agent imports them).
    .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    // bcrypt for the web configuration's basic_auth_users (HummingbirdBcrypt).
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.0.0"),
    // TLS for the web configuration's tls_server_config (already in the graph through
    // HummingbirdTLS; named here because the agent imports NIOSSL).
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
  ],
  targets: [
    // libpcap from the system (Debian: libpcap-dev).
    .systemLibrary(
      name: "CPcap",
      pkgConfig: "libpcap",
      providers: [.apt(["libpcap-dev"])]
    ),
    // zlib from the system (Debian: zlib1g-dev), for gzip-encoded scrapes.
    .systemLibrary(
      name: "CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]
    ),
    // The engine: pure, no I/O, no clock.
    .target(name: "NetQualityCore"),
    // Capture shells: pcap/pcapng files through libpcap.
    .target(name: "NetQualityCapture", dependencies: ["CPcap", "NetQualityCore"]),
    // Synthetic traffic: frame builders, pcap writer, scenario generator.
    .target(name: "NetQualitySynth", dependencies: ["NetQualityCore"]),
    // The agent's YAML configuration: defaults, validation with line numbers.
    .target(
      name: "NetQualityConfig",
      dependencies: ["NetQualityCore", .product(name: "Yams", package: "Yams")]
    ),
    // The live agent: capture threads, the ticking engine, HTTP (metrics, API), dashboard.
    .target(
      name: "NetQualityAgent",
      dependencies: [
        "NetQualityCore", "NetQualityCapture", "NetQualityConfig", "NetQualityExport",
        "NetQualityProbe", "NetQualityStore",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        .product(name: "NIOCore", package: "swift-nio"),
        // NIOPosix: the Alertmanager client's ClientBootstrap; NIOHTTP1: its client handlers.
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      plugins: ["BuildRevision", "EmbeddedRunbook"]
    ),
    // Writes the git commit being built into NetQualityAgent (`BuildInfo.revision`).
    .plugin(name: "BuildRevision", capability: .buildTool()),
    // Writes docs/runbook.md into NetQualityAgent (`GET /runbook`).
    .plugin(name: "EmbeddedRunbook", capability: .buildTool()),
    // STAMP (RFC 8762) probes: packet codec, HMAC authentication, the reflector, UDP sockets.
    .target(
      name: "NetQualityProbe",
      dependencies: ["NetQualityCore", .product(name: "Crypto", package: "swift-crypto")]
    ),
    // Rendering of engine results for people and programs.
    .target(name: "NetQualityExport", dependencies: ["NetQualityCore", "CZlib"]),
    // The SQLite history (GRDB over the system libsqlite3, Debian libsqlite3-dev): per-tick
    // rows, events, alerts and calls (their records as JSON, rendered by the tick's sender),
    // written off the hot path, retained and downsampled, queried. It does not import Export
    // (docs/architecture.md's module graph, checked by scripts/check-module-graph.py).
    .target(
      name: "NetQualityStore",
      dependencies: [
        "NetQualityCore", .product(name: "GRDB", package: "GRDB.swift"),
        // The system libsqlite3's C API, for the per-row binding GRDB's arguments are too slow
        // for (`SQLiteRowBinder`).
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    .executableTarget(
      name: "netquality",
      dependencies: [
        "NetQualityCore", "NetQualityCapture", "NetQualitySynth", "NetQualityExport",
        "NetQualityConfig", "NetQualityAgent", "NetQualityProbe", "NetQualityStore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
        // `top`'s client: http and https (TLS, client certificates) to the agent.
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]
    ),
    // The test impairment relay (e2e): seeded delay, jitter, loss, duplication and
    // reordering per direction on a UDP path; not a user-facing command.
    .executableTarget(
      name: "netquality-impair",
      dependencies: [
        "NetQualitySynth", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The analysis engine timed alone over a capture held in memory (see scripts/bench.sh).
    .executableTarget(
      name: "netquality-engine-bench",
      dependencies: ["NetQualityCore", "NetQualityCapture", "NetQualitySynth"]),
    // The history's writing, maintenance and queries timed over simulated days of ticks (see
    // scripts/bench-history.sh).
    .executableTarget(
      name: "netquality-history-bench",
      dependencies: [
        "NetQualityStore", "NetQualityCore", "NetQualityExport", "NetQualitySynth",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(name: "NetQualityCoreTests", dependencies: ["NetQualityCore", "NetQualitySynth"]),
    // The engine's scenarios; probes go through the real probe session (NetQualityProbe).
    .testTarget(
      name: "NetQualityEngineTests",
      dependencies: ["NetQualityCore", "NetQualitySynth", "NetQualityProbe"]),
    .testTarget(
      name: "NetQualityCaptureTests",
      dependencies: ["NetQualityCapture", "NetQualityCore", "NetQualitySynth"]
    ),
    .testTarget(
      name: "NetQualityProbeTests", dependencies: ["NetQualityProbe", "NetQualityCore"]),
    // The exposition and its catalogue; also checks the operators' kit against the catalogue:
    // docs/metrics.md, dashboards/*.json and config/rules/*.yml (read with Yams).
    .testTarget(
      name: "NetQualityExportTests",
      dependencies: [
        "NetQualityExport", "NetQualityCore", .product(name: "Yams", package: "Yams"),
      ]),
    // The history on temporary files: migrations, writing, rollup and retention, reports,
    // output formats, the recorder's faults.
    // The history tests' fixtures (a temporary directory, a script of ticks, events), shared
    // by the Store's tests and the agent's tests of the history's renderings.
    .target(
      name: "NetQualityStoreTestSupport",
      dependencies: [
        "NetQualityStore", "NetQualityCore", "NetQualityExport",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tests/NetQualityStoreTestSupport"),
    .testTarget(
      name: "NetQualityStoreTests",
      dependencies: [
        "NetQualityStore", "NetQualityCore", "NetQualityExport", "NetQualityStoreTestSupport",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "NetQualityConfigTests",
      dependencies: [
        "NetQualityConfig", "NetQualityCore", .product(name: "Yams", package: "Yams"),
      ]),
    // The agent's HTTP routes through Hummingbird's test client (no sockets), its connection
    // limits on NIO's embedded channels, the dashboard's files and the log's bounds.
    .testTarget(
      name: "NetQualityAgentTests",
      dependencies: [
        "NetQualityAgent", "NetQualityCore", "NetQualitySynth", "NetQualityStore",
        "NetQualityExport", "NetQualityConfig", "NetQualityCapture", "NetQualityProbe",
        "NetQualityStoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      // Read by MetricsGoldenTests from the source tree.
      exclude: ["Golden"]
    ),
    // Runs the built `netquality` binary as a user would.
    .testTarget(
      name: "NetQualityCLITests",
      dependencies: [
        "netquality", "NetQualitySynth", "NetQualityAgent", "NetQualityProbe", "NetQualityCore",
        "NetQualityConfig",
      ]),
  ]
)
