import ApsioCore
import ApsioJSON
import ApsioWire
import Foundation
import Testing

/// Bodies left as they are, so tests read them and byte counts are the JSON's length.
struct Uncompressed: BodyCompressing {
    func compress(_ bytes: [UInt8]) -> [UInt8] { bytes }
}

/// A live channel on a manual clock: a 30-minute session runs in microseconds.
struct LiveHarness {
    var channel: LiveChannel
    var now = LiveNow(mono: MonotonicInstant(.seconds(1000)), wallUnixMs: 1_800_000_000_000)
    /// Everything the channel asked for, in order.
    var log: [LiveAction] = []
    /// A backend that accepts every `frames` and `results` body at once, so tests about something
    /// else need not answer each one.
    var acceptsBodies = true

    static let token = String(repeating: "a1", count: 32)
    static let otherToken = String(repeating: "b2", count: 32)
    static let identity = LiveIdentity(
        install: "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90", session: "11111111-2222-3333-4444-555555555555",
        model: "ThinkPad X1", os: "Debian GNU/Linux 12", release: "1.4.2")
    static let proof = TesterProof(entryID: "qa-box-7", installationID: identity.install, hashing: sha256)

    init(limits: Limits = .spec, dayBytes: DayBytes = DayBytes(day: 0, bytes: 0)) {
        channel = LiveChannel(limits: limits, compressor: Uncompressed(), bodies: LiveBodies(), dayBytes: dayBytes)
    }

    @discardableResult
    mutating func send(_ event: LiveEvent) -> [LiveAction] {
        var actions = channel.handle(event, now: now)
        log += actions
        guard acceptsBodies else { return actions }
        var index = 0
        while index < actions.count {
            switch actions[index] {
            case .sendFrames(let id, _, _), .sendResults(let id, _, _):
                let more = channel.handle(.answered(id, .status(202, body: [], retryAfter: nil)), now: now)
                log += more
                actions += more
            default:
                break
            }
            index += 1
        }
        return actions
    }

    /// The `next` request now open, following the channel's deadlines until it opens one.
    mutating func openNext() throws -> LiveRequestID {
        for _ in 0..<100 {
            if let open = log.nextIDs.last(where: { channel.requestsInFlight.contains($0) }) { return open }
            guard let deadline = channel.nextDeadline else { break }
            now = now.advanced(by: max(deadline - now.mono, .zero))
            send(.tick)
        }
        throw HarnessError.noNextOpened
    }

    enum HarnessError: Error { case noNextOpened }

    /// Moves both clocks and delivers a tick, as the runtime does at each deadline.
    @discardableResult
    mutating func advance(_ duration: Duration) -> [LiveAction] {
        now = now.advanced(by: duration)
        return send(.tick)
    }

    /// Follows the channel's own deadlines until `duration` has passed, collecting what it did.
    @discardableResult
    mutating func run(for duration: Duration) -> [LiveAction] {
        var actions = wakeAtDeadlines(for: duration)
        actions += send(.tick)
        return actions
    }

    /// Wakes the channel only at the deadlines it names, as the runtime does, until `duration` has
    /// passed: what the channel owes at a moment it did not name never goes.
    @discardableResult
    mutating func wakeAtDeadlines(for duration: Duration) -> [LiveAction] {
        let end = now.mono + duration
        var actions: [LiveAction] = []
        while let deadline = channel.nextDeadline, deadline <= end {
            let step = max(deadline - now.mono, .zero)
            now = now.advanced(by: step)
            let produced = send(.tick)
            actions += produced
            if step == .zero && produced.isEmpty { break }
        }
        now = now.advanced(by: end - now.mono)
        return actions
    }

    /// Both keys turned, consent, a matching tester, the unit active: the channel is open.
    @discardableResult
    mutating func openChannel() -> [LiveAction] {
        send(.identity(Self.identity))
        send(.consent(true))
        send(.tester(Self.proof))
        send(.foreground(.active))
        return send(.allowed(true))
    }

    /// Opens the channel, answers its hello with viewers and a token: a live session starts.
    @discardableResult
    mutating func startSession(viewers: Int = 1) -> [LiveAction] {
        let hello = try! #require(openChannel().helloID)
        return send(.answered(hello, .status(200, json: helloBody(viewers: viewers), retryAfter: nil)))
    }

    func helloBody(viewers: Int, token: String? = LiveHarness.token, interval: Double? = nil) -> JSONValue {
        var members: [String: JSONValue] = ["viewers": .number(Double(viewers))]
        if let token { members["device_token"] = .string(token) }
        if let interval { members["interval_s"] = .number(interval) }
        return .object(members)
    }
}

extension Array where Element == LiveAction {
    var helloID: LiveRequestID? { helloBodies.last?.0 }
    var helloBodies: [(LiveRequestID, JSONValue, DeviceToken?)] {
        compactMap {
            if case .sendHello(let id, let body, let token) = $0 { return (id, json(body), token) }
            return nil
        }
    }
    var nextIDs: [LiveRequestID] {
        compactMap {
            if case .openNext(let id, _, _) = $0 { return id }
            return nil
        }
    }
    var frames: [(LiveRequestID, JSONValue)] {
        compactMap {
            if case .sendFrames(let id, let body, _) = $0 { return (id, json(body)) }
            return nil
        }
    }
    var results: [(LiveRequestID, JSONValue)] {
        compactMap {
            if case .sendResults(let id, let body, _) = $0 { return (id, json(body)) }
            return nil
        }
    }
    var cancelled: [LiveRequestID] {
        flatMap { action -> [LiveRequestID] in
            if case .cancel(let ids) = action { return ids }
            return []
        }
    }
    var commandsRun: [String] {
        compactMap {
            if case .runCommand(let id, _) = $0 { return id }
            return nil
        }
    }
    var notices: [LiveCommandName] {
        compactMap {
            if case .notice(let name) = $0 { return name }
            return nil
        }
    }
    var sessionEnds: [LiveSessionEnd] {
        compactMap {
            if case .sessionEnded(let end) = $0 { return end }
            return nil
        }
    }
    /// The moments the channel told the daemon it is held until (`.held`), in order.
    var holds: [Int64?] {
        compactMap {
            if case .held(let until) = $0 { return .some(until) }
            return nil
        }
    }
    var sentAnything: Bool {
        contains {
            switch $0 {
            case .sendHello, .openNext, .sendFrames, .sendResults: return true
            default: return false
            }
        }
    }
    var framesStates: [String] { frames.compactMap { $0.1["state"]?.stringValue } }
}

func json(_ bytes: [UInt8]) -> JSONValue {
    (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) ?? .null
}

func nextAnswer(
    commands: [(String, String)] = [], viewers: Int = 1, remainingMs: Int64? = 1_800_000, stop: String? = nil
) -> LiveResponse {
    var members: [String: JSONValue] = [
        "commands": .array(commands.map { .object(["id": .string($0.0), "name": .string($0.1), "args": .object([:])]) }),
        "viewers": .number(Double(viewers)),
    ]
    members["remaining_ms"] = remainingMs.map { .number(Double($0)) } ?? .null
    members["stop"] = stop.map { .string($0) } ?? .null
    return .status(200, json: .object(members), retryAfter: nil)
}

func record(_ body: String, severity: Int = 9, atMs: Int64 = 1_800_000_000_000) -> LogRecord {
    LogRecord(
        timeUnixNano: UInt64(atMs) * 1_000_000, severityNumber: severity, severityText: "INFO", family: .logs,
        body: body, attributes: [.int("process.pid", 42)])
}
