// Redaction and OTLP encoding on the hot path: every journal line passes both. Measures the cost
// a line of the built-in rules, of Redact= patterns with and without a literal prefix, of the
// same built-in rules written as regular expressions (what the byte scan saves), and of writing
// OTLP JSON. bench/redaction/run.sh builds and runs it; docs/performance.md has results.
import ApsioCore
import ApsioRedaction
import ApsioNet
import ApsioWire
#if canImport(Glibc)
import Glibc
#endif

var lineCount = 200_000
var rounds = 5
var mixFile: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--lines": lineCount = arguments.next().flatMap { Int($0) } ?? lineCount
    case "--rounds": rounds = arguments.next().flatMap { Int($0) } ?? rounds
    case "--mix": mixFile = arguments.next()
    default:
        print("usage: apsio-bench-redaction [--lines N] [--rounds N] [--mix FILE]")
        exit(2)
    }
}

/// The lines of a file, repeated to `count`: the realistic mix (mostly ordinary lines, one in a
/// hundred with a secret) the tests' corpus keeps.
func readMix(_ path: String, count: Int) -> [String] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var lines: [String] = []
    var buffer: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&buffer, &capacity, file) > 0, let buffer {
        var line = String(cString: buffer)
        if line.hasSuffix("\n") { line.removeLast() }
        if !line.isEmpty { lines.append(line) }
    }
    free(buffer)
    guard !lines.isEmpty else { return [] }
    return (0..<count).map { lines[$0 % lines.count] }
}

/// A fixed generator, so every run measures the same lines.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Service log lines as journald stores them: mostly access and status lines, one in a hundred
/// holding a secret.
func makeLines(_ count: Int, secretEvery: Int) -> [String] {
    var random = SplitMix(state: 42)
    let paths = ["/", "/index.html", "/api/v1/orders", "/static/app.4f2c.js", "/healthz", "/api/v1/users/8812/profile"]
    let agents = ["curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0", "kube-probe/1.28"]
    let secrets = [
        "POST /login password=hunter2&user=bob", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
        "connecting to postgres://app:s3cret@db.internal:5432/app", "charge card=4111 1111 1111 1111 ok",
    ]
    return (0..<count).map { index in
        if secretEvery > 0, index % secretEvery == secretEvery - 1 { return secrets[index / secretEvery % secrets.count] }
        switch random.next() % 4 {
        case 0:
            let ip = "10.\(random.next() % 256).\(random.next() % 256).\(random.next() % 256)"
            let path = paths[Int(random.next() % UInt64(paths.count))]
            let agent = agents[Int(random.next() % UInt64(agents.count))]
            return "\(ip) - - [29/Nov/2026:14:56:14 +0000] \"GET \(path) HTTP/1.1\" 200 \(random.next() % 90_000) \"-\" \"\(agent)\""
        case 1: return "worker \(random.next() % 16): processed batch \(random.next() % 100_000) in \(random.next() % 900) ms"
        case 2: return "Listening on 0.0.0.0:8080, ready to accept connections — état: prêt ✓"
        default: return "cache hit ratio=0.\(random.next() % 100) entries=\(random.next() % 10_000) evicted=\(random.next() % 50)"
        }
    }
}

/// CPU time of this thread, in nanoseconds: the machine may be shared, and wall time would
/// count the other loads too.
func threadCPUNanoseconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1e9 + Double(spec.tv_nsec)
}

/// The median over rounds of the CPU time to run `body` over every line, in nanoseconds a line.
@MainActor func measure(_ lines: [String], _ body: (String) -> String) -> (nsPerLine: Double, changed: Int) {
    var samples: [Double] = []
    var changed = 0
    for _ in 0..<rounds {
        changed = 0
        let start = threadCPUNanoseconds()
        for line in lines where body(line).utf8.count != line.utf8.count { changed += 1 }
        samples.append((threadCPUNanoseconds() - start) / Double(lines.count))
    }
    return (samples.sorted()[samples.count / 2], changed)
}

/// The built-in rules as regular expressions, for comparison only.
let regexRules: [Regex<AnyRegexOutput>] = try [
    #"(?i)authorization"?\s*[:=]\s*[^\r\n]+"#, #"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{8,}=*"#,
    #"(?i)(password|passwd|secret|token)=[^\s&;,"')\]}<>]+"#,
    #"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----"#,
    #"[A-Za-z0-9+.\-]+://[^/?#\s"'<>]*@"#,
].map { try Regex($0) }

@MainActor func regexRedact(_ text: String) -> String {
    var text = text
    for rule in regexRules { text.replace(rule, with: Redactor.replacement) }
    return text
}

let clean = makeLines(lineCount, secretEvery: 0)
let mixed = makeLines(lineCount, secretEvery: 100)
let mix = mixFile.map { readMix($0, count: lineCount) } ?? []
let builtIn = try Redactor()
let noRules = try Redactor(rules: .none)
let everything = try Redactor(rules: .all)
let prefixed = try Redactor(patterns: ["card=[0-9 ]{12,19}"])
let unprefixed = try Redactor(patterns: ["[0-9]{13,19}"])
let averageBytes = clean.reduce(0) { $0 + $1.utf8.count } / clean.count

print("lines: \(lineCount) a case (about \(averageBytes) bytes each), \(rounds) rounds, median ns a line")
print("| case | lines | ns a line | lines a second | changed |")
print("|---|---|---:|---:|---:|")
@MainActor func row(_ name: String, _ kind: String, _ lines: [String], _ body: (String) -> String) {
    let (ns, changed) = measure(lines, body)
    print("| \(name) | \(kind) | \(String(format1(ns))) | \(Int(1e9 / ns)) | \(changed) of \(lines.count) |")
}

func format1(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

// A regular expression costs thousands of times a byte scan: fewer lines for those rows.
let few = Array(clean.prefix(max(1, lineCount / 50)))
row("no redaction (loop overhead)", "clean", clean) { $0 }
row("no built-in rule", "clean", clean) { noRules.redact($0) }
row("built-in library (default rules)", "clean", clean) { builtIn.redact($0) }
row("built-in library (default rules)", "1 % secrets", mixed) { builtIn.redact($0) }
if !mix.isEmpty {
    row("no built-in rule", "realistic mix", mix) { noRules.redact($0) }
    row("built-in library (default rules)", "realistic mix", mix) { builtIn.redact($0) }
    row("built-in library + personal data", "realistic mix", mix) { everything.redact($0) }
}
row("+ Redact=card=[0-9 ]{12,19} (literal prefix)", "clean", clean) { prefixed.redact($0) }
row("+ Redact=card=[0-9 ]{12,19} (literal prefix)", "1 % secrets", mixed) { prefixed.redact($0) }
row("+ Redact=[0-9]{13,19} (no prefix)", "clean", few) { unprefixed.redact($0) }
row("built-in rules as 5 regexes (comparison)", "clean", few) { regexRedact($0) }

// A journal record: its body and the string attributes the follower maps (about a dozen).
let attributeValues = ["nginx.service", "nginx", "/usr/sbin/nginx", "nginx: worker process", "www-data", "stdout",
                       "3", "4242", "0b5c2a8e3f1d4c1d9f005e6d7c8b9a01", "edge-7", "1764000000123456", "nginx.service"]
let journalRecords = clean.prefix(max(1, lineCount / 10)).map { line in
    LogRecord(
        timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: line,
        attributes: attributeValues.enumerated().map { .string("field\($0.offset)", $0.element) })
}
var recordSamples: [Double] = []
for _ in 0..<rounds {
    let start = threadCPUNanoseconds()
    var changed = 0
    for record in journalRecords where builtIn.redact(record) != record { changed += 1 }
    precondition(changed == 0)
    recordSamples.append((threadCPUNanoseconds() - start) / Double(journalRecords.count))
}
let recordNs = recordSamples.sorted()[recordSamples.count / 2]
print("")
print("A record with \(attributeValues.count) string attributes, built-in rules: \(format1(recordNs)) ns a record, \(Int(1e9 / recordNs)) records a second")

// OTLP: a batch of 500 records of one session, as ingest sends them.
let encoder = OTLPLogsEncoder(hashing: OpenSSLSHA256())
let resource = OTLPResource(
    serviceName: "com.example.nginx", serviceVersion: "1.22.1-9", appBuildID: "3c2f5e8d41",
    facts: ResourceFacts(osName: "Debian GNU/Linux", osVersion: "12", hostName: "edge-7"),
    installationID: "4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31", sessionID: "0b5c2a8e-3f1d-4c1d-9f00-5e6d7c8b9a01")
let records = clean.prefix(500).enumerated().map { index, line in
    IngestRecord(
        LogRecord(
            timeUnixNano: 1_764_000_000_000_000_000 + UInt64(index), severity: JournalSeverity(priority: 6), body: line,
            attributes: [.string("systemd.unit", "nginx.service"), .int("_PID", 4242)],
            sessionID: resource.sessionID, journalCursor: "s=739ad463348b4ceca5a9e69c95a3c93f;i=\(index);b=9f;m=1;t=5;x=e"),
        mark: .sessionRate(1))
}
let batch = [OTLPResourceLogs(resource: resource, records: records)]
var batchSamples: [Double] = []
var bytes = 0
let batches = max(1, lineCount / 500)
for _ in 0..<rounds {
    let start = threadCPUNanoseconds()
    for _ in 0..<batches { bytes = encoder.encode(batch).count }
    batchSamples.append((threadCPUNanoseconds() - start) / Double(batches * records.count))
}
let encodeNs = batchSamples.sorted()[batchSamples.count / 2]
let hasher = OpenSSLSHA256()
let input = Array("4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31:s=739ad463348b4ceca5a9e69c95a3c93f;i=1;b=9f;m=1;t=5;x=e".utf8)
let hashStart = threadCPUNanoseconds()
for _ in 0..<lineCount { _ = hasher.sha256(input) }
let hashNs = (threadCPUNanoseconds() - hashStart) / Double(lineCount)
print("OTLP JSON, batches of \(records.count) records (\(bytes) bytes each): \(format1(encodeNs)) ns a record, \(Int(1e9 / encodeNs)) records a second; of which the uid's SHA-256: \(format1(hashNs)) ns")
