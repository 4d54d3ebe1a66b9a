// The fleet load generator for bench/fleet/run.sh: devices, live sessions, viewers and policy
// fetches against a running backend, as a fleet makes them, with the figures a run reports.
//
//   apsio-bench-fleet --backend URL[,URL...] --apps N --devices-per-app N --live N
//                     --viewers-per-live N --user USER:PASSWORD [--interval S] [--seconds S]
//                     [--policy-per-second N] [--lines N] [--sticky-viewers] [--sticky-devices]
//
// Device i of app a is install fleet-a-i, tester t-i of app bench-a with app key bench-key-a
// (bench/fleet/measure.py lists the same testers on the backend's command line). The first --live
// devices, app by app (app 0's first, then app 1's), hold `next` and post `frames` once a second
// with --lines lines, each line stamped with when it was posted; --viewers-per-live viewers watch
// each of them (ten viewers to a sign-in, a person watching ten devices), and the time from the
// post to the viewer's event is the fan-out.
//
// Given several backends (the instances of one fleet), every request goes to the next one in
// turn, whoever sends it: a device's hello lands on one instance and its `next` on another, a
// viewer signs in on one and polls the others, as behind a balancer with no stickiness. With
// --sticky-viewers, each person's watches and polls go to one instance (person N to backend N mod
// the count), as nginx's `hash $http_authorization consistent` sends them
// (packaging/examples/nginx-apsio-backend.conf). With --sticky-devices, each device's requests go
// to one instance (device N to backend N mod the count), as nginx's hash on the device's live
// token sends them; otherwise they go in turn.
//
// Prints key=value figures on stdout: `measuring=1` when the measured window opens, `ended=1`
// when it closes (the caller reads the backends' CPU at both), then the figures.
import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioPOSIX
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

func fail(_ text: String) -> Never {
    StandardStream.error.write(text + "\n")
    exit(2)
}

struct Options {
    var backends: [String] = []
    var apps = 1
    var devicesPerApp = 100
    var live = 10
    var viewersPerLive = 1
    var user = ""
    var password = ""
    var interval = 30
    var seconds = 60
    var policyPerSecond = 0.0
    var lines = 50
    var stickyViewers = false
    var stickyDevices = false
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    func value(_ name: String) -> String {
        guard let value = arguments.popFirst() else { fail("\(name) needs a value") }
        return value
    }
    func number(_ name: String) -> Int {
        guard let number = Int(value(name)), number >= 0 else { fail("\(name) needs a number") }
        return number
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--backend": options.backends += value(argument).split(separator: ",").map(String.init)
        case "--apps": options.apps = max(1, number(argument))
        case "--devices-per-app": options.devicesPerApp = number(argument)
        case "--live": options.live = number(argument)
        case "--viewers-per-live": options.viewersPerLive = number(argument)
        case "--interval": options.interval = max(1, number(argument))
        case "--seconds": options.seconds = max(1, number(argument))
        case "--policy-per-second": options.policyPerSecond = Double(number(argument))
        case "--lines": options.lines = number(argument)
        case "--sticky-viewers": options.stickyViewers = true
        case "--sticky-devices": options.stickyDevices = true
        case "--user":
            let parts = value(argument).split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { fail("--user needs USER:PASSWORD") }
            (options.user, options.password) = (parts[0], parts[1])
        default: fail("unknown option \(argument)")
        }
    }
    guard !options.backends.isEmpty, !options.user.isEmpty else { fail("--backend and --user are needed") }
    options.live = min(options.live, options.apps * options.devicesPerApp)
    return options
}

/// Counts and latencies from every task, read once at the end.
final class Tally: Sendable {
    private struct State {
        var hellos = 0
        var helloFailures = 0
        var framesPosted = 0
        var frameFailures = 0
        var policies = 0
        var notModified = 0
        var policyFailures = 0
        var fanOutMs: [Double] = []
        var viewerEvents = 0
        var gaps = 0
        var viewerFailures = 0
        /// Why viewers failed: the status of the last refusal, 0 when no answer came.
        var viewerFailureStatuses: [Int: Int] = [:]
        var nextFailures = 0
        var nexts = 0
        var polls = 0
        var pollFailures = 0
        var sessionsStarted = 0
        /// When the window opened, and the first and last request that failed in it: with a Redis
        /// master killed mid-run, whether failures stayed within the failover.
        var opened: ContinuousClock.Instant?
        var firstFailure: ContinuousClock.Instant?
        var lastFailure: ContinuousClock.Instant?

        mutating func failed() {
            let now = ContinuousClock.now
            if firstFailure == nil { firstFailure = now }
            lastFailure = now
        }
    }

    private let state = Mutex(State())
    let measuring = Atomic<Bool>(false)

    func open() {
        state.withLock { $0.opened = .now }
        measuring.store(true, ordering: .relaxed)
    }

    func hello(ok: Bool) {
        if measuring.load(ordering: .relaxed) { state.withLock { if ok { $0.hellos += 1 } else { $0.helloFailures += 1; $0.failed() } } }
    }
    func frames(ok: Bool) {
        if measuring.load(ordering: .relaxed) { state.withLock { if ok { $0.framesPosted += 1 } else { $0.frameFailures += 1; $0.failed() } } }
    }
    func policy(status: Int) {
        guard measuring.load(ordering: .relaxed) else { return }
        state.withLock {
            switch status {
            case 200: $0.policies += 1
            case 304: $0.policies += 1; $0.notModified += 1
            default:
                $0.policyFailures += 1
                $0.failed()
            }
        }
    }
    func fanOut(_ milliseconds: Double) { if measuring.load(ordering: .relaxed) { state.withLock { $0.fanOutMs.append(milliseconds); $0.viewerEvents += 1 } } }
    func sessionStarted() { state.withLock { $0.sessionsStarted += 1 } }
    func next(ok: Bool) {
        if measuring.load(ordering: .relaxed) { state.withLock { if ok { $0.nexts += 1 } else { $0.nextFailures += 1; $0.failed() } } }
    }
    func poll(ok: Bool) {
        if measuring.load(ordering: .relaxed) { state.withLock { if ok { $0.polls += 1 } else { $0.pollFailures += 1; $0.failed() } } }
    }
    func gap() { if measuring.load(ordering: .relaxed) { state.withLock { $0.gaps += 1 } } }
    /// A viewer that could not sign in or watch: counted whenever it happens, since it happens
    /// before the window and leaves a live device without its viewer for the whole run.
    func viewerFailed(status: Int) { state.withLock { $0.viewerFailures += 1; $0.viewerFailureStatuses[status, default: 0] += 1 } }

    func report(seconds: Double) -> [String] {
        state.withLock { state in
            let sorted = state.fanOutMs.sorted()
            func percentile(_ p: Double) -> String {
                guard !sorted.isEmpty else { return "none" }
                return decimal(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))], places: 1)
            }
            return [
                "measured_seconds=\(decimal(seconds, places: 1))",
                "hellos=\(state.hellos)", "hello_failures=\(state.helloFailures)",
                "frames=\(state.framesPosted)", "frame_failures=\(state.frameFailures)",
                "policies=\(state.policies)", "policy_304=\(state.notModified)", "policy_failures=\(state.policyFailures)",
                "nexts=\(state.nexts)", "next_failures=\(state.nextFailures)",
                "polls=\(state.polls)", "poll_failures=\(state.pollFailures)", "sessions=\(state.sessionsStarted)", "viewer_failures=\(state.viewerFailures)",
                "viewer_failure_statuses=\(state.viewerFailureStatuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))",
                "fanout_events=\(sorted.count)", "gaps=\(state.gaps)",
                "fanout_p50_ms=\(percentile(0.5))", "fanout_p99_ms=\(percentile(0.99))",
                "first_failure_s=\(offset(state.firstFailure, from: state.opened))",
                "last_failure_s=\(offset(state.lastFailure, from: state.opened))",
            ]
        }
    }
}

/// Seconds from the window's opening to `instant`, or "none".
func offset(_ instant: ContinuousClock.Instant?, from opened: ContinuousClock.Instant?) -> String {
    guard let instant, let opened else { return "none" }
    let elapsed = instant - opened
    return decimal(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, places: 2)
}

/// `value` with `places` decimals, without Foundation.
func decimal(_ value: Double, places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = Int64((value * scale).rounded())
    let whole = scaled / Int64(scale)
    let fraction = String(abs(scaled % Int64(scale)))
    let sign = scaled < 0 && whole == 0 ? "-" : ""
    guard places > 0 else { return String(whole) }
    return sign + String(whole) + "." + String(repeating: "0", count: places - fraction.count) + fraction
}

func say(_ text: String) {
    StandardStream.output.write(text + "\n")
}

func nowMs() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1_000_000
}

let options = parseOptions()

/// The backends in turn, one request each: shared by every task, so consecutive requests of one
/// device or viewer land on different instances whenever there are several.
final class RoundRobin: Sendable {
    let endpoints: [HTTPEndpoint]
    private let next = Atomic<Int>(0)

    init(_ urls: [String]) {
        var endpoints: [HTTPEndpoint] = []
        for url in urls {
            do { endpoints.append(try HTTPEndpoint(baseURL: url)) } catch { fail("--backend \(url): \(error)") }
        }
        self.endpoints = endpoints
    }

    var endpoint: HTTPEndpoint {
        endpoints[next.wrappingAdd(1, ordering: .relaxed).oldValue % endpoints.count]
    }
}
let backends = RoundRobin(options.backends)
let hashing = OpenSSLSHA256()
let tally = Tally()
// Keep-alive past the hello interval, so a device's hellos reuse their connection.
let clientOptions = HTTPClient.Options(maxIdleConnectionsPerOrigin: 4, idleTimeout: .seconds(Int64(options.interval) + 30))
func makeClient() -> HTTPClient {
    do { return try HTTPClient(options: clientOptions) } catch { fail("client: \(error)") }
}
/// The quiet devices share a few connections (the backend allows a few hundred at once); each
/// live device and viewer has its own, since it holds a request.
let sharedClients = (0..<8).map { _ in makeClient() }

/// The first --live devices in app order are live: app 0's first, then app 1's.
func isLive(_ device: Device) -> Bool {
    device.app * options.devicesPerApp + device.index < options.live
}

struct Device: Sendable {
    let app: Int
    let index: Int
    var install: String { "fleet-\(app)-\(index)" }
    var appKey: String { "bench-key-\(app)" }
    /// The instance this device's requests go to: its own with --sticky-devices, else the next.
    var backend: HTTPEndpoint {
        options.stickyDevices ? backends.endpoints[(app * options.devicesPerApp + index) % backends.endpoints.count] : backends.endpoint
    }
    var tester: String { "t-\(index)" }
}

func helloBody(_ device: Device) -> [UInt8] {
    let proof = TesterProof(entryID: device.tester, installationID: device.install, hashing: hashing)
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("install"); writer.string(device.install)
    writer.key("model"); writer.string("bench")
    writer.key("os"); writer.string("Debian GNU/Linux 12")
    writer.key("release"); writer.string("1.0")
    writer.key("tester"); writer.string(device.tester)
    writer.key("proof"); writer.string(proof.secretHex)
    writer.endObject()
    return writer.bytes
}

/// One hello; returns the token and the viewers count it was answered.
func hello(_ device: Device, token: String?, client: HTTPClient) async -> (token: String?, viewers: Int) {
    var headers: HTTPHeaders = ["Apsio-App-Key": device.appKey]
    if let token { headers.set("Apsio-Live-Token", token) }
    do {
        let response = try await client.send(.postJSON("/v1/live/hello", json: helloBody(device), headers: headers), to: device.backend)
        let body = try? JSONParser().parse(response.body)
        tally.hello(ok: response.status == 200)
        return (body?["device_token"]?.stringValue ?? token, Int(body?["viewers"]?.numberValue ?? 0))
    } catch {
        tally.hello(ok: false)
        return (token, 0)
    }
}

/// A quiet device: a hello every interval, from a random start within the first interval.
func quietDevice(_ device: Device, client: HTTPClient, until end: ContinuousClock.Instant) async {
    try? await Task.sleep(for: .milliseconds(Int.random(in: 0..<(options.interval * 1000))))
    var token: String?
    while ContinuousClock.now < end {
        token = await hello(device, token: token, client: client).token
        try? await Task.sleep(for: .seconds(options.interval))
    }
}

func framesBody(_ device: Device, number: Int) -> [UInt8] {
    let stamp = nowMs()
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("install"); writer.string(device.install)
    writer.key("state"); writer.string("live")
    writer.key("lines")
    writer.beginArray()
    for line in 0..<options.lines {
        writer.beginObject()
        writer.key("t"); writer.double(stamp)
        writer.key("severity"); writer.int(9)
        writer.key("body"); writer.string("posted=\(decimal(stamp, places: 3)) frame=\(number) line=\(line) GET /api/orders 200")
        writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return writer.bytes
}

/// A live device: hellos until a viewer is there, then `next` held in a loop and `frames` every
/// second, with hellos at the interval alongside.
func liveDevice(_ device: Device, until end: ContinuousClock.Instant) async {
    let client = makeClient()
    let poller = makeClient()
    var token: String?
    var viewers = 0
    while viewers == 0, ContinuousClock.now < end {
        (token, viewers) = await hello(device, token: token, client: client)
        if viewers == 0 { try? await Task.sleep(for: .milliseconds(500)) }
    }
    // A device nobody came to watch by the end has no session to count.
    guard let token, viewers > 0 else { return }
    tally.sessionStarted()
    let headers: HTTPHeaders = ["Apsio-App-Key": device.appKey, "Apsio-Live-Token": token]
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            while ContinuousClock.now < end {
                let request = HTTPRequest.get("/v1/live/next?install=\(device.install)", headers: headers, timeout: .seconds(40))
                let answered = (try? await poller.send(request, to: device.backend))?.isSuccess ?? false
                tally.next(ok: answered)
                // A refusal comes at once: waiting a second keeps it from becoming a hot loop.
                if !answered { try? await Task.sleep(for: .seconds(1)) }
            }
        }
        group.addTask {
            var number = 0
            var lastHello = ContinuousClock.now
            while ContinuousClock.now < end {
                number += 1
                let posted = try? await client.send(.postJSON("/v1/live/frames", json: framesBody(device, number: number), headers: headers), to: device.backend)
                tally.frames(ok: posted?.isSuccess ?? false)
                if ContinuousClock.now - lastHello >= .seconds(options.interval) {
                    lastHello = .now
                    _ = await hello(device, token: token, client: client)
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}

/// A person watching one device: signed in, then the stream polled until the end; each frames
/// event's first line says when it was posted.
/// Viewers watching this many devices share one sign-in: one person of the team watching several
/// devices, as the viewer's fleet page allows.
let viewersPerPerson = 10

/// One person's sign-in, retried while the backend says it is busy: it checks only a few passwords
/// at once, and a thousand viewers arriving in the same second is the benchmark, not a team.
func signIn() async -> (token: String?, refusal: Int) {
    let client = makeClient()
    let login = JSONValue.object(["user": .string(options.user), "password": .string(options.password)])
    var refusal = 0
    for attempt in 0..<20 {
        if attempt > 0 { try? await Task.sleep(for: .milliseconds(Int.random(in: 200..<1000))) }
        let signedIn = try? await client.send(.postJSON("/api/login", json: JSONWriter.encode(login), gzip: false), to: backends.endpoint)
        if let signedIn, let token = (try? JSONParser().parse(signedIn.body))?["token"]?.stringValue { return (token, 0) }
        refusal = signedIn?.status ?? 0
    }
    return (nil, refusal)
}

/// A person watching one device: signed in, then the stream polled until the end; each frames
/// event's first line says when it was posted.
func viewer(
    of device: Device, signedIn: (token: String?, refusal: Int), person: Int, until end: ContinuousClock.Instant
) async {
    // The instance this person's requests stick to, or the next in turn for each.
    var endpoint: HTTPEndpoint {
        options.stickyViewers ? backends.endpoints[person % backends.endpoints.count] : backends.endpoint
    }
    let client = makeClient()
    let query = "?app=bench-\(device.app)"
    guard let token = signedIn.token else {
        tally.viewerFailed(status: signedIn.refusal)
        return
    }
    let headers: HTTPHeaders = ["Authorization": "Bearer \(token)"]
    var watching = false
    var refusal = 0
    // A few tries: under load one refusal is the load, not a broken run.
    for attempt in 0..<10 where !watching {
        if attempt > 0 { try? await Task.sleep(for: .milliseconds(Int.random(in: 200..<1000))) }
        let watched = try? await client.send(
            HTTPRequest(method: "POST", path: "/api/devices/\(device.install)/watch\(query)", headers: headers), to: endpoint)
        if watched?.isSuccess ?? false { watching = true } else { refusal = watched?.status ?? 0 }
    }
    guard watching else {
        tally.viewerFailed(status: refusal)
        return
    }
    var after: UInt64 = 0
    while ContinuousClock.now < end {
        let request = HTTPRequest.get("/api/devices/\(device.install)/stream\(query)&after=\(after)", headers: headers, timeout: .seconds(40))
        let answer = try? await client.send(request, to: endpoint)
        tally.poll(ok: answer?.isSuccess ?? false)
        guard let answer, answer.isSuccess, let body = try? JSONParser().parse(answer.body) else {
            // A refusal comes at once: waiting a second keeps it from becoming a hot loop.
            try? await Task.sleep(for: .seconds(1))
            continue
        }
        let received = nowMs()
        for event in body["events"]?.arrayValue ?? [] {
            if event["type"]?.stringValue == "gap" { tally.gap() }
            guard event["type"]?.stringValue == "frames" else { continue }
            if let stamp = event["frames"]?["lines"]?.arrayValue?.first?["t"]?.numberValue {
                tally.fanOut(received - stamp)
            }
        }
        if let last = body["last_seq"]?.numberValue, last > 0 { after = UInt64(last) }
    }
}

/// Policy fetches of every box of every app, spread evenly: a conditional GET with the ETag the
/// app's last answer gave, as the daemon sends, so most are 304.
func policyFetches(until end: ContinuousClock.Instant) async {
    guard options.policyPerSecond > 0 else { return }
    let clients = (0..<8).map { _ in makeClient() }
    let gap = Duration.seconds(1.0 / options.policyPerSecond)
    final class ETags: Sendable { let byApp = Mutex<[Int: String]>([:]) }
    let etags = ETags()
    await withTaskGroup(of: Void.self) { group in
        var number = 0
        var next = ContinuousClock.now
        while ContinuousClock.now < end {
            number += 1
            let app = number % options.apps
            let client = clients[number % clients.count]
            group.addTask {
                var headers: HTTPHeaders = ["Apsio-App-Key": "bench-key-\(app)"]
                if let etag = etags.byApp.withLock({ $0[app] }) { headers.set("If-None-Match", etag) }
                guard let response = try? await client.send(.get("/v1/policy", headers: headers), to: backends.endpoint) else {
                    tally.policy(status: 0)
                    return
                }
                if let etag = response.headers["ETag"] { etags.byApp.withLock { $0[app] = etag } }
                tally.policy(status: response.status)
            }
            next = next + gap
            try? await Task.sleep(until: next, clock: .continuous)
        }
    }
}

let start = ContinuousClock.now
let warmUp = Duration.seconds(options.interval)
let end = start + warmUp + .seconds(options.seconds)
let done = DispatchSemaphore(value: 0)
// Detached: top-level code runs on the main actor, whose thread waits on `done` below.
Task.detached {
    await withTaskGroup(of: Void.self) { group in
        for app in 0..<options.apps {
            for index in 0..<options.devicesPerApp {
                let device = Device(app: app, index: index)
                if isLive(device) {
                    group.addTask { await liveDevice(device, until: end) }
                } else {
                    group.addTask { await quietDevice(device, client: sharedClients[index % sharedClients.count], until: end) }
                }
            }
        }
        // Viewers watch once every device has said hello once (after the first interval).
        group.addTask {
            try? await Task.sleep(until: start + .seconds(1), clock: .continuous)
            // The people sign in one after another, then their viewers watch; all before the
            // window opens, so that every session has started when it does.
            let watchers = options.live * options.viewersPerLive
            var people: [(token: String?, refusal: Int)] = []
            for _ in 0..<((watchers + viewersPerPerson - 1) / viewersPerPerson) { people.append(await signIn()) }
            await withTaskGroup(of: Void.self) { viewers in
                for number in 0..<watchers {
                    let live = number / options.viewersPerLive
                    let device = Device(app: live / max(1, options.devicesPerApp), index: live % max(1, options.devicesPerApp))
                    let person = number / viewersPerPerson
                    let signedIn = people[person]
                    viewers.addTask { await viewer(of: device, signedIn: signedIn, person: person, until: end) }
                }
            }
        }
        group.addTask { await policyFetches(until: end) }
        group.addTask {
            // Measured from the end of the warm-up: every device is present, every session started.
            try? await Task.sleep(until: start + warmUp, clock: .continuous)
            tally.open()
            say("measuring=1")
            try? await Task.sleep(until: end, clock: .continuous)
            tally.measuring.store(false, ordering: .relaxed)
            say("ended=1")
        }
        // Requests still held at the end (a `next`, a stream poll) are not waited for: the
        // window is closed, and waiting would only make the run longer.
        try? await Task.sleep(until: end + .seconds(1), clock: .continuous)
        group.cancelAll()
    }
    done.signal()
}
done.wait()
let measured = Double((end - (start + warmUp)).components.seconds)
say(tally.report(seconds: measured).joined(separator: "\n"))
