// One app's ingest pipeline, the daemon's own code, outside the daemon: for bench/ingest/run.sh and
// for the crash test, which kills it with SIGKILL and starts it again on the same state directory.
//
//   apsio-bench-ingest run --journal-dir DIR --unit UNIT --backend URL --state-dir DIR
//                          [--app-key KEY] [--installation-id ID] [--gzip-level N] [--expect N]
//                          [--redact-rules none|standard|all] [--encoding json|protobuf]
//                          [--compression gzip|zstd] [--zstd-level N]
//       Exports UNIT's entries in DIR (from the oldest, or after the saved cursor) to URL/v1/logs.
//       UNIT may be a comma-separated list: one app per unit, as the daemon serves several apps.
//       With --expect it stops once N records (of every app) were accepted in this run, writes the
//       cursors and prints its figures (bytes= is what the bodies weighed on the wire, compressed);
//       without, it runs until it is killed, or stops cleanly on SIGTERM.
//   apsio-bench-ingest sink [--port N]
//       A loopback /v1/logs that accepts every request and keeps nothing; prints port=N.
import ApsioCore
import ApsioRedaction
import ApsioIngest
import ApsioNet
import ApsioPOSIX
import ApsioPlatform
import ApsioState
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

func fail(_ text: String, status: Int32 = 2) -> Never {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

func complain(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func say(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

let usage = """
    usage: apsio-bench-ingest run --journal-dir DIR --unit UNIT --backend URL --state-dir DIR \
    [--app-key KEY] [--installation-id ID] [--gzip-level N] [--expect N] [--redact-rules none|standard|all] \
    [--encoding json|protobuf] [--compression gzip|zstd] [--zstd-level N]
           apsio-bench-ingest sink [--port N]
    """

/// The built-in redaction rules a run applies: none (what the rules cost is the difference),
/// the default library, or every rule with personal data.
func redactionRules(_ name: String) -> RedactionRuleSet {
    switch name {
    case "none": return .none
    case "standard": return .standard
    case "all": return .all
    default: fail(usage)
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else { fail(usage) }
arguments.removeFirst()
var options: [String: String] = [:]
var iterator = arguments.makeIterator()
while let name = iterator.next() {
    guard name.hasPrefix("--"), let value = iterator.next() else { fail(usage) }
    options[String(name.dropFirst(2))] = value
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// The daemon's transport, counting the bytes of the bodies it posts: what each compression sends.
final class CountingTransport: IngestTransport {
    let inner: HTTPIngestTransport
    private let counted = Atomic<Int>(0)

    init(_ inner: HTTPIngestTransport) { self.inner = inner }

    var bytes: Int { counted.load(ordering: .relaxed) }

    func post(_ body: [UInt8], encoding: OTLPEncoding, compression: OTLPCompression) async throws(CancellationError) -> IngestAnswer {
        counted.add(body.count, ordering: .relaxed)
        return try await inner.post(body, encoding: encoding, compression: compression)
    }
}

/// SIGTERM as an event the main task awaits (ProcessSignals), so no Swift code runs in a handler.
/// Returns once SIGTERM came.
func waitForTermination() async {
    let signals = ProcessSignals([SIGTERM])
    for await _ in signals.events { break }
}

switch mode {
case "sink":
    var router = HTTPRouter()
    router.add("POST", "/v1/logs") { _ in HTTPServerResponse(status: 200) }
    let limits = HTTPServerLimits(http: HTTPLimits(maxBodyBytes: 64 << 20), maxConnections: 16)
    let server = HTTPServer(bind: "127.0.0.1", port: Int(options["port"] ?? "0") ?? 0, limits: limits, router: router)
    let port: Int
    do {
        port = try await server.start()
    } catch {
        fail("sink: \(error)", status: 1)
    }
    say("port=\(port)")
    await waitForTermination()
    await server.stop()

case "run":
    guard let journalDir = options["journal-dir"], let unit = options["unit"], let backendURL = options["backend"],
        let stateDir = options["state-dir"]
    else { fail(usage) }
    let expect = options["expect"].flatMap { Int($0) }
    let installationID = options["installation-id"] ?? "4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31"
    let appKey = AppKey(options["app-key"] ?? "apsio_app_bench")
    // The daemon's state directory exists before it starts (StateDirectory=); here it may not yet.
    if (try? FileSystem.makeDirectoryIfMissing(stateDir, mode: 0o750)) == nil { fail("cannot make \(stateDir)", status: 1) }
    do {
        let units = unit.split(separator: ",").map(String.init)
        let backend = try HTTPEndpoint(baseURL: backendURL)
        let resource = OTLPResource(
            serviceName: "com.example.bench", serviceVersion: "1.0", appBuildID: "com.example.bench@1.0",
            facts: ResourceFacts(osName: "Debian GNU/Linux", osVersion: "12", hostName: "bench-host"),
            installationID: installationID)
        let clock = SystemAgentClock()
        let client = try HTTPClient()
        let transport = CountingTransport(HTTPIngestTransport(client: client, backend: backend, appKey: appKey))
        let redactor = try Redactor(rules: redactionRules(options["redact-rules"] ?? "standard"))
        guard let encoding = OTLPEncoding(rawValue: options["encoding"] ?? "json"),
            let compression = OTLPCompression(rawValue: options["compression"] ?? "gzip")
        else { fail(usage) }
        // One app keeps the name it always had, so that a state directory of an earlier run resumes.
        let names = try units.indices.map { try AppName(units.count == 1 ? "bench" : "bench\($0)") }
        // One reader for every app, as the daemon has.
        let hub = try JournalHub(
            source: .directory(journalDir),
            apps: zip(names, units).map { JournalApp(id: $0.rawValue, unit: $1, start: .now) })
        var exporters: [AppExporter] = []
        for (name, unit) in zip(names, units) {
            let configuration = AppExporterConfiguration(
                app: name, unit: unit, firstStart: .oldest, resource: resource,
                redactor: redactor, encoding: encoding, compression: compression,
                gzipLevel: Int32(options["gzip-level"] ?? "1") ?? 1,
                zstdLevel: Int32(options["zstd-level"] ?? "\(Zstd.defaultLevel)") ?? Zstd.defaultLevel)
            exporters.append(try AppExporter(
                configuration: configuration, journal: hub, state: StateLayout(root: stateDir), clock: clock, transport: transport,
                hashing: OpenSSLSHA256(), log: Logger(StandardErrorSink(), kind: .ingest, app: name.rawValue)))
        }
        for exporter in exporters {
            await exporter.consent(granted: true)
            await exporter.policyChanged(Policy())
        }
        let startCPU = cpuSeconds()
        for exporter in exporters { try await exporter.start() }
        await hub.start()
        func sent() async -> (records: Int, batches: Int) {
            var total = (records: 0, batches: 0)
            for exporter in exporters {
                let status = await exporter.status
                total.records += status.sentRecords
                total.batches += status.sentBatches
            }
            return total
        }
        if let expect {
            // Polled, not awaited: the pipeline's own code has no "all sent" event, and a poll
            // every 50 ms costs nothing next to it. Peak memory is sampled from outside
            // (bench/ingest/measure.py), so that reading /proc does not count as the pipeline's CPU.
            while await sent().records < expect {
                try await Task.sleep(for: .milliseconds(50))
            }
            for exporter in exporters { await exporter.stop() }
            await hub.stop()
            let cpu = cpuSeconds() - startCPU
            let status = await sent()
            say(
                "records=\(status.records) batches=\(status.batches) cpu=\(cpu) "
                    + "rate=\(Int(Double(status.records) / max(cpu, 1e-9))) bytes=\(transport.bytes)")
        } else {
            await waitForTermination()
            for exporter in exporters { await exporter.stop() }
            await hub.stop()
        }
    } catch {
        fail("apsio-bench-ingest: \(error)", status: 1)
    }

default:
    fail(usage)
}

/// The exporter's warnings and errors, on stderr next to the bench's own lines.
struct StandardErrorSink: LogSink {
    func isLogged(_ level: LogLevel) -> Bool { level.isLogged(atMinimum: .warning) }
    func write(_ level: LogLevel, _ kind: LogKind, _ message: String, app: String?, fields: [(name: String, value: String)]) {
        complain(app.map { "\($0): \(message)" } ?? message)
    }
}
