// Reads every entry of the given units in a journal directory through the journal follower,
// mapping each to its log record, and reports the CPU time, the memory and the rate.
// bench/journal/run.sh runs it next to `journalctl -o export` on the same files.
import ApsioCore
import ApsioPlatform
import ApsioPOSIX
#if canImport(Glibc)
import Glibc
#endif

func usage() -> Never {
    let text = "usage: apsio-bench-journal --dir DIR --unit UNIT [--unit UNIT…] [--digest] [--one-opening]\n"
    StandardStream.error.write(text)
    exit(2)
}

var directory: String?
var units: [String] = []
var digesting = false
/// `--one-opening`: read everything on the first opening of the journal, as a reader that never
/// opens it again (journalctl, or this follower before it did) holds it.
var limits = JournalReadLimits.standard
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--dir": directory = arguments.next()
    case "--unit": if let unit = arguments.next() { units.append(unit) }
    case "--digest": digesting = true
    case "--one-opening": limits.entriesPerOpening = .max
    default: usage()
    }
}
guard let directory, !units.isEmpty else { usage() }

/// A field of /proc/self/status, in KiB.
func statusKiB(_ name: String) -> Int {
    guard let file = fopen("/proc/self/status", "re") else { return -1 }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, file) > 0, let line {
        let text = String(cString: line)
        if text.hasPrefix(name + ":") {
            return Int(text.dropFirst(name.count + 1).filter(\.isNumber)) ?? -1
        }
    }
    return -1
}

/// FNV-1a over every record as text: two builds that map the same files the same way print the
/// same digest, which is how a faster mapping is checked to change nothing (`--digest`; slow).
struct RecordDigest {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

let apps = units.map { JournalApp(id: $0, unit: $0, minPriority: 7, start: .oldest) }
let follower = try JournalFollower(source: .directory(directory), apps: apps, limits: limits)
let startCPU = cpuSeconds()
var records = 0
var bodyBytes = 0
var attributes = 0
var peakAnonKiB = 0
var batches = 0
var digest = RecordDigest()
while let batch = try await follower.nextAvailable() {
    for (app, part) in batch.records.sorted(by: { $0.key < $1.key }) {
        records += part.count
        for record in part {
            bodyBytes += record.body.utf8.count
            attributes += record.attributes.count
            if digesting { digest.add("\(app) \(record)") }
        }
    }
    if digesting { digest.add("\(batch.cursors.sorted { $0.key < $1.key })") }
    batches += 1
    // A batch is bounded, so memory is flat; sample it now and then rather than only at the end.
    if batches % 512 == 0 { peakAnonKiB = max(peakAnonKiB, statusKiB("RssAnon")) }
}
let cpu = cpuSeconds() - startCPU
peakAnonKiB = max(peakAnonKiB, statusKiB("RssAnon"))
let rate = cpu > 0 ? Double(records) / cpu : 0
let milliseconds = Int((cpu * 1000).rounded())
let report: [String] = [
    "records=\(records)", "cpu_s=\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst())",
    "records_per_cpu_s=\(Int(rate))", "rss_anon_kib=\(statusKiB("RssAnon"))",
    "rss_anon_peak_sampled_kib=\(peakAnonKiB)", "vm_hwm_kib=\(statusKiB("VmHWM"))",
    "body_bytes=\(bodyBytes)", "attributes=\(attributes)",
] + (digesting ? ["digest=\(String(digest.value, radix: 16))"] : [])
print(report.joined(separator: " "))
