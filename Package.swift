// swift-tools-version:6.0
// apsiod: live inspection of systemd services (Apsio Mobile Profile, section 16).
// No package from outside: the toolchain and Debian's C libraries only.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "apsio",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "apsiod", targets: ["apsiod"]),
        .executable(name: "apsioctl", targets: ["apsioctl"]),
        .executable(name: "apsio-backend", targets: ["apsio-backend"]),
    ],
    targets: [
        // Each C library is imported by exactly one Swift module:
        // CSystemd by ApsioPlatform; CZlib, CIsal, CZstd and COpenSSL by ApsioNet; CLinux by ApsioPOSIX.
        .systemLibrary(
            name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Compression of whole bodies; zlib stays for decompression, which must stream under a cap.
        .systemLibrary(
            name: "CIsal", path: "Sources/CIsal", pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]),
        // Zstandard, the other compression an app file may choose (Compression=zstd), both ways.
        .systemLibrary(
            name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // epoll and timerfd, which Swift's Glibc module leaves out; glibc itself, nothing to link.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // Pure: no C, no I/O, no clock reads. JSON bytes in and out; the spec's rules and state machines.
        .target(name: "ApsioJSON", swiftSettings: strict),
        .target(name: "ApsioCore", swiftSettings: strict),
        // The spec's bodies on the wire, pure too: JSON and OTLP codecs over the core's types.
        .target(name: "ApsioWire", dependencies: ["ApsioCore", "ApsioJSON"], swiftSettings: strict),
        // The secrets and personal data taken out of a record before it leaves the box.
        .target(name: "ApsioRedaction", dependencies: ["ApsioCore"], swiftSettings: strict),
        // File descriptors, errno and readiness: the POSIX edge every I/O module stands on.
        .target(name: "ApsioPOSIX", dependencies: ["ApsioCore", "CLinux"], swiftSettings: strict),
        // SHA-256, gzip and zstd, HTTP/1.1 and TLS.
        .target(
            name: "ApsioNet", dependencies: ["ApsioCore", "ApsioPOSIX", "CZlib", "CIsal", "CZstd", "COpenSSL"],
            swiftSettings: strict),
        // The Linux "device": journal, unit state, sysfs/procfs, sd_notify.
        .target(name: "ApsioPlatform", dependencies: ["ApsioCore", "ApsioPOSIX", "CSystemd"], swiftSettings: strict),

        // The daemon's files under /var/lib/apsio: layout, the cursor, the record queue and its codec,
        // settings and the per-app state; each written so that a crash leaves the last good copy.
        .target(name: "ApsioState", dependencies: ["ApsioCore", "ApsioJSON", "ApsioPOSIX"], swiftSettings: strict),
        // What the operator wrote: app files, apsiod.conf, their schemas and the problems found.
        .target(
            name: "ApsioConfiguration", dependencies: ["ApsioCore", "ApsioRedaction", "ApsioPOSIX", "ApsioNet", "ApsioState"],
            swiftSettings: strict),
        // The control socket's server and client: peer credentials, framing, limits.
        .target(name: "ApsioControl", dependencies: ["ApsioCore", "ApsioJSON", "ApsioPOSIX"], swiftSettings: strict),
        // The backend's Redis client: RESP, one pipelined connection with deadlines, reconnects,
        // and a connection of its own for pub/sub.
        .target(name: "ApsioRedis", dependencies: ["ApsioCore", "ApsioPOSIX", "ApsioNet"], swiftSettings: strict),
        // apsioctl's commands, with its streams, caller and clock passed in: the binary is main.swift
        // alone, and the tests run every command in their own process.
        .target(name: "ApsioCtl", dependencies: ["ApsioCore", "ApsioJSON", "ApsioPOSIX", "ApsioControl", "ApsioState"], swiftSettings: strict),
        // One app's records from the journal to POST /v1/logs, through the record queue.
        .target(
            name: "ApsioIngest",
            dependencies: ["ApsioCore", "ApsioWire", "ApsioRedaction", "ApsioPOSIX", "ApsioNet", "ApsioPlatform", "ApsioState"],
            swiftSettings: strict),
        // The policy of each app: fetched, kept on disk, the last good one kept on a bad answer.
        .target(
            name: "ApsioPolicy", dependencies: ["ApsioCore", "ApsioWire", "ApsioPOSIX", "ApsioNet", "ApsioState"],
            swiftSettings: strict),
        // The live channel's runtime, the device feeds it reports, and the indicator on the machine.
        .target(
            name: "ApsioLive",
            dependencies: ["ApsioCore", "ApsioWire", "ApsioRedaction", "ApsioJSON", "ApsioPOSIX", "ApsioNet", "ApsioPlatform"],
            swiftSettings: strict),
        // The daemon assembled: one served app per app file, the control handler, logging, signals.
        .target(
            name: "ApsioAgent",
            dependencies: [
                "ApsioCore", "ApsioPOSIX", "ApsioNet", "ApsioPlatform", "ApsioState", "ApsioConfiguration",
                "ApsioControl", "ApsioIngest", "ApsioPolicy", "ApsioLive",
            ],
            swiftSettings: strict),

        // The development backend of spec 16.7: policy, ingest sink, live hub, viewer API, and the
        // viewer's pages: plain files in Sources/ApsioBackend/Viewer, compiled into the binary by
        // the EmbedViewerAssets plugin so that `apsio-devbackend` alone serves them.
        .target(
            name: "ApsioBackend",
            dependencies: ["ApsioCore", "ApsioWire", "ApsioJSON", "ApsioNet", "ApsioPOSIX", "ApsioConfiguration", "ApsioRedis"],
            exclude: ["Viewer"],
            swiftSettings: strict, plugins: ["EmbedViewerAssets"]),
        .executableTarget(name: "apsio-embed-viewer", swiftSettings: strict),
        .plugin(name: "EmbedViewerAssets", capability: .buildTool(), dependencies: ["apsio-embed-viewer"]),

        // setpriority(2) for libdispatch's worker threads: a refusal by the unit's sandbox is not
        // worth a journal line (Sources/CThreadPriority/thread_priority.c).
        .target(name: "CThreadPriority"),
        .executableTarget(
            name: "apsiod", dependencies: ["ApsioCore", "ApsioAgent", "ApsioControl", "ApsioNet", "ApsioPlatform", "ApsioPOSIX", "CThreadPriority"],
            swiftSettings: strict),
        .executableTarget(name: "apsioctl", dependencies: ["ApsioCtl"], swiftSettings: strict),
        // Both backends are one program in ApsioBackend (BackendMain); the binaries differ only in
        // their name and in the configuration directory read without --config.
        .executableTarget(name: "apsio-devbackend", dependencies: ["ApsioBackend"], swiftSettings: strict),
        .executableTarget(name: "apsio-backend", dependencies: ["ApsioBackend", "ApsioPOSIX"], swiftSettings: strict),
        // bench/journal/run.sh: reads a journal directory through the follower, as fast as it can.
        .executableTarget(name: "apsio-bench-journal", dependencies: ["ApsioCore", "ApsioPlatform", "ApsioPOSIX"], swiftSettings: strict),
        // bench/redaction/run.sh: redaction and OTLP encoding, the per-line cost of ingest's hot path.
        .executableTarget(
            name: "apsio-bench-redaction", dependencies: ["ApsioCore", "ApsioWire", "ApsioRedaction", "ApsioNet"], swiftSettings: strict),
        // bench/ingest/run.sh and the crash test: one app's ingest pipeline, and a sink that keeps nothing.
        .executableTarget(
            name: "apsio-bench-ingest",
            dependencies: ["ApsioCore", "ApsioRedaction", "ApsioIngest", "ApsioNet", "ApsioPOSIX", "ApsioPlatform", "ApsioState"],
            swiftSettings: strict),

        // bench/fleet/run.sh: devices, live sessions, viewers and policy fetches against a backend.
        .executableTarget(
            name: "apsio-bench-fleet", dependencies: ["ApsioCore", "ApsioJSON", "ApsioNet", "ApsioPOSIX"], swiftSettings: strict),

        // Fixtures shared by the test targets: real journal files, a private bus, temporary trees, a
        // control server with a fake daemon behind it.
        .target(
            name: "ApsioTestSupport",
            dependencies: [
                "ApsioControl", "ApsioCore", "ApsioWire", "ApsioJSON", "ApsioLive", "ApsioNet", "ApsioPlatform", "ApsioPOSIX",
                "ApsioState",
            ],
            path: "Tests/ApsioTestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "ApsioCoreTests", dependencies: ["ApsioCore", "ApsioWire", "ApsioJSON", "ApsioNet", "ApsioTestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ApsioWireTests", dependencies: ["ApsioWire", "ApsioCore", "ApsioJSON", "ApsioNet", "ApsioTestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "ApsioJSONTests", dependencies: ["ApsioJSON"], swiftSettings: strict),
        .testTarget(
            name: "ApsioIngestTests",
            dependencies: [
                "ApsioIngest", "ApsioBackend", "ApsioCore", "ApsioWire", "ApsioJSON", "ApsioNet", "ApsioPlatform", "ApsioPOSIX",
                "ApsioRedaction", "ApsioState", "ApsioTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioPolicyTests",
            dependencies: ["ApsioPolicy", "ApsioCore", "ApsioNet", "ApsioPOSIX", "ApsioState", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioStateTests", dependencies: ["ApsioState", "ApsioCore", "ApsioNet", "ApsioPOSIX", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioConfigurationTests", dependencies: ["ApsioConfiguration", "ApsioCore", "ApsioNet", "ApsioState", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioControlTests", dependencies: ["ApsioControl", "ApsioCore", "ApsioJSON", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioRedactionTests", dependencies: ["ApsioRedaction", "ApsioCore", "ApsioTestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ApsioLiveTests", dependencies: ["ApsioLive", "ApsioCore", "ApsioNet", "ApsioPOSIX", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioAgentTests",
            dependencies: [
                "ApsioAgent", "ApsioBackend", "ApsioControl", "ApsioCore", "ApsioJSON", "ApsioLive", "ApsioNet", "ApsioPlatform",
                "ApsioPOSIX", "ApsioState", "ApsioTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioCtlTests",
            dependencies: ["ApsioCtl", "ApsioControl", "ApsioCore", "ApsioJSON", "ApsioPOSIX", "ApsioState", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ApsioBackendTests",
            dependencies: [
                "ApsioBackend", "ApsioConfiguration", "ApsioCore", "ApsioWire", "ApsioJSON", "ApsioNet", "ApsioPOSIX", "ApsioRedis",
                "ApsioTestSupport",
            ],
            swiftSettings: strict),
        // Every test that runs a built binary (apsiod, apsioctl, apsio-backend, apsio-bench-ingest),
        // with the nginx and redis-server processes set up in front of and behind them.
        .testTarget(
            name: "ApsioEndToEndTests",
            dependencies: [
                "ApsioAgent", "ApsioBackend", "ApsioControl", "ApsioCore", "ApsioWire", "ApsioJSON", "ApsioLive", "ApsioNet",
                "ApsioPlatform", "ApsioRedaction", "ApsioState", "ApsioTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(name: "ApsioPOSIXTests", dependencies: ["ApsioPOSIX", "ApsioCore", "ApsioTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ApsioRedisTests", dependencies: ["ApsioRedis", "ApsioCore", "ApsioPOSIX", "ApsioTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "ApsioNetTests", dependencies: ["ApsioNet", "ApsioCore", "ApsioTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ApsioPlatformTests", dependencies: ["ApsioPlatform", "ApsioCore", "ApsioWire", "ApsioPOSIX", "ApsioTestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
