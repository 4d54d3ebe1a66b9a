package import ApsioCore
package import ApsioJSON
import ApsioNet
package import ApsioPOSIX
import Foundation
package import Synchronization
package import ApsioLive

/// A live backend in memory: records every request, answers hellos from a script, holds `next`
/// (and, when asked, `results`) until the test releases it or the runtime cancels it.
package final class ScriptedLiveBackend: LiveTransport, Sendable {
    package struct Seen: Sendable {
        package let request: LiveHTTPRequest
        package let body: JSONValue?
        /// When it arrived: what a test compares with a moment the backend named (a Retry-After's
        /// end), to say that nothing came before it.
        package let arrivedAt: ContinuousClock.Instant
    }

    private struct State {
        var seen: [Seen] = []
        var helloAnswer: LiveResponse = .status(200, json: .object(["viewers": .number(0)]), retryAfter: nil)
        /// Answers for the next hellos, before `helloAnswer`.
        var helloScript: [LiveResponse] = []
        var resultsAnswer: LiveResponse = .status(202, body: [], retryAfter: nil)
        /// Answers for the next `frames` and `results`, one each, before the usual ones.
        var framesScript: [LiveResponse] = []
        var resultsScript: [LiveResponse] = []
        var holdsResults = false
        var heldNext: [Int: CheckedContinuation<LiveResponse, Never>] = [:]
        var heldResults: [Int: CheckedContinuation<LiveResponse, Never>] = [:]
        var nextNumber = 0
        var cancelledNext = 0
    }

    private let state = Mutex(State())
    /// Bumped whenever a request arrives, is held, or is let go: what a test waits on.
    package let changes = ChangeSignal()

    package init() {}

    package var seen: [Seen] { state.withLock { $0.seen } }
    package var cancelledNext: Int { state.withLock { $0.cancelledNext } }
    package var heldNextCount: Int { state.withLock { $0.heldNext.count } }
    package var heldResultsCount: Int { state.withLock { $0.heldResults.count } }

    package func answerHellos(_ response: LiveResponse) { state.withLock { $0.helloAnswer = response } }
    /// The next hellos get these answers, one each, then `answerHellos`'.
    package func answerNextHellos(_ responses: [LiveResponse]) { state.withLock { $0.helloScript += responses } }
    package func answerResults(_ response: LiveResponse) { state.withLock { $0.resultsAnswer = response } }
    /// The next `frames` bodies get these answers, one each, then 202.
    package func answerNextFrames(_ responses: [LiveResponse]) { state.withLock { $0.framesScript += responses } }
    /// The next `results` bodies get these answers, one each, then `answerResults`'.
    package func answerNextResults(_ responses: [LiveResponse]) { state.withLock { $0.resultsScript += responses } }
    /// `results` requests wait for `releaseResults` from now on (a slow backend).
    package func holdResults() { state.withLock { $0.holdsResults = true } }

    package func requests(to path: String) -> [Seen] { seen.filter { $0.request.path.hasPrefix(path) } }

    /// Answers every held `next` with `response`.
    package func releaseNext(_ response: LiveResponse) {
        let held = state.withLock { state -> [CheckedContinuation<LiveResponse, Never>] in
            defer { state.heldNext.removeAll() }
            return Array(state.heldNext.values)
        }
        for continuation in held { continuation.resume(returning: response) }
        changes.notify()
    }

    /// Answers every held `results` with `response`, and answers the next ones at once again.
    package func releaseResults(_ response: LiveResponse) {
        let held = state.withLock { state -> [CheckedContinuation<LiveResponse, Never>] in
            defer {
                state.heldResults.removeAll()
                state.holdsResults = false
            }
            return Array(state.heldResults.values)
        }
        for continuation in held { continuation.resume(returning: response) }
        changes.notify()
    }

    /// In memory: the request as the runtime handed it to the network.
    package func send(_ request: LiveHTTPRequest) async throws(CancellationError) -> LiveResponse {
        let body = request.gzipBody.flatMap { bytes -> JSONValue? in
            guard let plain = try? Gzip.decompress(bytes, maxOutput: 1 << 24) else { return nil }
            return try? JSONDecoder().decode(JSONValue.self, from: Data(plain))
        }
        // A request cancelled before it went out never reaches a real server either.
        if Task.isCancelled { throw CancellationError() }
        return try await answer(request, body: body)
    }

    /// Records the request and answers it from the script; a `next` is held until released or
    /// cancelled. `LoopbackLiveBackend` calls this with what arrived over the socket.
    package func answer(_ request: LiveHTTPRequest, body: JSONValue?) async throws(CancellationError) -> LiveResponse {
        state.withLock { $0.seen.append(Seen(request: request, body: body, arrivedAt: .now)) }
        changes.notify()
        if request.path.hasPrefix("/v1/live/hello") {
            return state.withLock { $0.helloScript.isEmpty ? $0.helloAnswer : $0.helloScript.removeFirst() }
        }
        if request.path.hasPrefix("/v1/live/results") {
            let (hold, answer) = state.withLock { state -> (Bool, LiveResponse) in
                if !state.resultsScript.isEmpty { return (false, state.resultsScript.removeFirst()) }
                return (state.holdsResults, state.resultsAnswer)
            }
            guard hold else { return answer }
            return try await held(.results)
        }
        if request.path.hasPrefix("/v1/live/frames") {
            let scripted = state.withLock { $0.framesScript.isEmpty ? nil : $0.framesScript.removeFirst() }
            return scripted ?? .status(202, body: [], retryAfter: nil)
        }
        guard request.path.hasPrefix("/v1/live/next") else { return .status(202, body: [], retryAfter: nil) }
        return try await held(.next)
    }

    private enum Held: Sendable { case next, results }

    /// Waits for a release, or answers `.failed` once the request is cancelled.
    private func held(_ kind: Held) async throws(CancellationError) -> LiveResponse {
        let number = state.withLock { state -> Int in
            state.nextNumber += 1
            return state.nextNumber
        }
        let response = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LiveResponse, Never>) in
                let cancelledAlready = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    switch kind {
                    case .next: state.heldNext[number] = continuation
                    case .results: state.heldResults[number] = continuation
                    }
                    return false
                }
                if cancelledAlready { continuation.resume(returning: .failed) }
                changes.notify()
            }
        } onCancel: {
            let held = state.withLock { state -> CheckedContinuation<LiveResponse, Never>? in
                switch kind {
                case .next:
                    guard let continuation = state.heldNext.removeValue(forKey: number) else { return nil }
                    state.cancelledNext += 1
                    return continuation
                case .results:
                    return state.heldResults.removeValue(forKey: number)
                }
            }
            held?.resume(returning: .failed)
            changes.notify()
        }
        if Task.isCancelled { throw CancellationError() }
        return response
    }
}

/// Records what the runtime told the daemon, and answers commands.
package final class RecordingLiveHost: LiveHost, Sendable {
    private let events = Mutex<[LiveHostEvent]>([])
    package let changes = ChangeSignal()
    package let frame: JSONValue = .object(["processes": .array([.object(["pid": .number(42), "comm": .string("nginx")])])])

    package init() {}

    package var received: [LiveHostEvent] { events.withLock { $0 } }

    package func live(_ event: LiveHostEvent) {
        events.withLock { $0.append(event) }
        changes.notify()
    }
    /// Whether `keep` writes: off, it answers as a disk that refuses the day's count does.
    package let keeps = Mutex(true)
    private let kept = Mutex<[DayBytes]>([])
    /// Every count written, in order.
    package var keptCounts: [DayBytes] { kept.withLock { $0 } }

    package func keep(_ dayBytes: DayBytes) -> Bool {
        let writes = keeps.withLock { $0 }
        if writes { kept.withLock { $0.append(dayBytes) } }
        changes.notify()
        return writes
    }
    package func screenshot() async -> JSONValue? { frame }
    package func diagnostics(commandID: String) async -> JSONValue? {
        .object(["apsio.live.command.id": .string(commandID), "apsio.queue.records": .number(0)])
    }
}
