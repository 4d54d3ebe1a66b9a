#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioCore
package import ApsioPOSIX
import Synchronization

/// The control socket (LINUX-PROFILE §16, docs/control.md): newline-delimited JSON requests from
/// `apsioctl` and scripts, answered by a `ControlHandler`. Anyone may read; only root and members
/// of the admin group may change a setting or see the installation ids, decided per request from
/// the kernel's credentials of the peer. Every resource a peer controls is bounded
/// (`ControlServerLimits`), and a peer that stops reading is dropped rather than waited for.
/// Places are given per user (`ControlAdmission`): no other user can keep the operators out.
package final class ControlServer: Sendable {
    private let listener: ControlListener
    private let handler: any ControlHandler
    private let access: ControlAccess
    private let limits: ControlServerLimits
    private let clock: any AgentClock
    private let acceptLoop = Mutex<Task<Void, Never>?>(nil)
    private let connections: ControlConnections

    package init(
        listener: ControlListener, handler: any ControlHandler, access: ControlAccess = ControlAccess(),
        limits: ControlServerLimits = .default, clock: any AgentClock = SystemAgentClock()
    ) {
        self.clock = clock
        self.listener = listener
        self.handler = handler
        self.access = access
        self.limits = limits
        connections = ControlConnections(limits: limits.admission)
    }

    /// Connections open now.
    package var connectionCount: Int { connections.count }

    /// Starts accepting; the socket already listens, so clients may connect before this.
    package func start() {
        acceptLoop.withLock { loop in
            guard loop == nil else { return }
            loop = Task { [self] in await accept() }
        }
    }

    /// Stops accepting, closes every connection (a `watch` included) and the listener, and returns
    /// once they are closed.
    package func stop() async {
        let loop = acceptLoop.withLock { $0 }
        loop?.cancel()
        await loop?.value
        listener.close()
    }

    private func accept() async {
        await AcceptLoop.run(listener.fd.rawValue, clock: clock) { fd in
            guard let socket = try? ControlSocket(taking: fd) else {
                fd.close()
                return nil
            }
            // A peer whose credentials cannot be read is nobody: it may read, never change.
            let peer = (try? ControlPeer.of(fd.rawValue)) ?? ControlPeer(pid: 0, uid: UInt32.max, gid: UInt32.max)
            guard let id = connections.arrive(socket, user: peer.uid, isOperator: access.mayChange(peer)) else {
                Self.refuseBusy(fd)
                return nil
            }
            return { [self] in
                await serve(socket, id: id, peer: peer)
                connections.left(id)
                socket.close()
            }
        }
    }

    /// One connection too many: told so if its socket takes the line at once, then closed.
    private static func refuseBusy(_ fd: OwnedFileDescriptor) {
        defer { fd.close() }
        let line = ControlAnswer.failed(ControlError(.busy, "apsiod serves as many control connections as it allows; try again")).line
        _ = try? fd.send(Array(line), flags: Int32(MSG_DONTWAIT))
    }

    // MARK: One connection

    private func serve(_ socket: ControlSocket, id: ControlAdmission.ID, peer: ControlPeer) async {
        while !Task.isCancelled {
            connections.set(id, .waiting)
            let outcome: ControlSocket.ReadOutcome
            do {
                outcome = try await socket.readLine(maxBytes: ControlRequest.maxLineBytes, timeout: limits.idleTimeout)
            } catch {
                return
            }
            let line: [UInt8]
            switch outcome {
            case .line(let bytes):
                line = bytes
                // Its answer is never cut off to make room for another.
                connections.set(id, .answering)
            case .closed, .timedOut: return
            case .tooLong:
                // The rest of the line cannot be told from the next request: answer and hang up.
                let error = ControlError(.tooLarge, "a request line is at most \(ControlRequest.maxLineBytes) bytes")
                try? await socket.write(ControlAnswer.failed(error).line, timeout: limits.writeTimeout)
                return
            }
            let request: ControlRequest
            do {
                request = try ControlRequest.parse(line)
            } catch {
                guard (try? await socket.write(ControlAnswer.failed(error).line, timeout: limits.writeTimeout)) != nil
                else { return }
                continue
            }
            if case .watch(let names) = request {
                connections.set(id, .watching)
                await watch(names, on: socket, peer: peer)
                return
            }
            let answer = await answer(request, peer: peer)
            guard (try? await socket.write(answer.line, timeout: limits.writeTimeout)) != nil else { return }
        }
    }

    private func answer(_ request: ControlRequest, peer: ControlPeer) async -> ControlAnswer {
        if request.changesSettings, !access.mayChange(peer) {
            return .failed(ControlError(.notPermitted, access.refusal))
        }
        do throws(ControlError) {
            let apps = try Self.appNames(request.namedApps)
            switch request {
            case .status:
                return .status(try await handler.status(apps: apps))
            case .apps:
                let apps = try await handler.apps()
                return .apps(access.maySeeInstallationIDs(peer) ? apps : apps.map { $0.withholdingInstallationID() })
            case .allowLive(let on, _):
                return .changed(apps: try await handler.setAllowLive(on, apps: apps).map(\.rawValue))
            case .consent(let choice, _):
                let consent: ConsentOverride = choice == .grant ? .granted : .denied
                return .changed(apps: try await handler.setConsent(consent, apps: apps).map(\.rawValue))
            case .dataSaver(let on):
                try await handler.setDataSaver(on)
                return .dataSaver(on)
            case .reload:
                return .reloaded(problems: try await handler.reload())
            case .version:
                return .version(ApsioVersion.current)
            case .watch:
                preconditionFailure("watch is served by watch(_:on:peer:)")
            }
        } catch {
            return .failed(error)
        }
    }

    /// A name that could not be an app's is no configured app.
    private static func appNames(_ names: [String]) throws(ControlError) -> [AppName] {
        var apps: [AppName] = []
        for name in names {
            guard let app = try? AppName(name) else {
                throw ControlError(.unknownApp, "no app is named \"\(UTF8Cut.cut(name, maxBytes: 64))\"; 'apsioctl apps' lists them")
            }
            apps.append(app)
        }
        return apps
    }

    // MARK: Watch

    private enum WatchEnd: Sendable {
        case streamEnded
        case overflowed
        case writeFailed
        case drained
        case peerClosed
    }

    /// Streams events until the peer closes, the handler ends the stream, or the peer falls
    /// behind: events are taken off the handler's stream at once into a bounded outbox, so the
    /// daemon never waits for a watcher, and a watcher whose outbox overflows, or that takes nothing
    /// for the write timeout, is dropped.
    private func watch(_ names: [String], on socket: ControlSocket, peer: ControlPeer) async {
        let events: AsyncStream<ControlEvent>
        do throws(ControlError) {
            events = try await handler.watch(apps: try Self.appNames(names))
        } catch {
            try? await socket.write(ControlAnswer.failed(error).line, timeout: limits.writeTimeout)
            return
        }
        guard (try? await socket.write(ControlAnswer.watching.line, timeout: limits.writeTimeout)) != nil else { return }
        let outbox = WatchOutbox(limit: limits.maxPendingWatchBytes)
        let writeTimeout = limits.writeTimeout
        await withTaskGroup(of: WatchEnd.self) { group in
            group.addTask {
                for await event in events {
                    guard outbox.push(event.line) else { return .overflowed }
                }
                outbox.finish()
                return .streamEnded
            }
            group.addTask {
                for await _ in outbox.wakeups {
                    while let bytes = outbox.take() {
                        guard (try? await socket.write(bytes, timeout: writeTimeout)) != nil else { return .writeFailed }
                    }
                }
                return .drained
            }
            group.addTask {
                try? await socket.waitForClose()
                return .peerClosed
            }
            while let end = await group.next() {
                // The writer still sends what the handler said before it ended the stream.
                if end == .streamEnded { continue }
                group.cancelAll()
                return
            }
        }
    }
}

/// Event lines waiting for one watcher, bounded in bytes; the writer is woken for each push.
private final class WatchOutbox: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var overflowed = false
    }

    private let limit: Int
    private let state = Mutex(State())
    let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(limit: Int) {
        self.limit = limit
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// False when the watcher is too far behind to keep.
    func push(_ line: [UInt8]) -> Bool {
        let kept = state.withLock { state -> Bool in
            guard !state.overflowed, state.pending.count + line.count <= limit else {
                state.overflowed = true
                return false
            }
            state.pending.append(contentsOf: line)
            return true
        }
        if kept { wake.yield() }
        return kept
    }

    /// Everything pending, or nil when nothing is.
    func take() -> [UInt8]? {
        state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
            defer { state.pending = [] }
            return state.pending
        }
    }

    func finish() { wake.finish() }
}
