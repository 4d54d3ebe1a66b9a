import Synchronization

/// The control server's connections: `ControlAdmission`'s book, and each connection's socket so
/// that one the admission lets go can be woken and closed from the accept loop.
final class ControlConnections: Sendable {
    private struct State {
        var admission: ControlAdmission
        /// Every connection not yet closed, those let go included.
        var sockets: [ControlAdmission.ID: ControlSocket] = [:]
    }

    private let state: Mutex<State>

    init(limits: ControlAdmission.Limits) {
        state = Mutex(State(admission: ControlAdmission(limits: limits)))
    }

    /// Connections open now, those let go and not yet closed included.
    var count: Int { state.withLock { $0.sockets.count } }

    /// Admits `socket` from `user` or refuses it (nil). The connection whose place it takes is
    /// shut down here: its reads and writes end at once, and its own task closes it.
    func arrive(_ socket: ControlSocket, user: UInt32, isOperator: Bool) -> ControlAdmission.ID? {
        let (id, victim) = state.withLock { state -> (ControlAdmission.ID?, ControlSocket?) in
            guard case .admit(let id, let lettingGo) = state.admission.arrive(user: user, isOperator: isOperator) else {
                return (nil, nil)
            }
            state.sockets[id] = socket
            return (id, lettingGo.flatMap { state.sockets[$0] })
        }
        // Outside the lock; a shutdown of a socket its task closed meanwhile does nothing.
        victim?.fd.shutdown()
        return id
    }

    func set(_ id: ControlAdmission.ID, _ activity: ControlAdmission.Activity) {
        state.withLock { $0.admission.set(id, activity) }
    }

    /// The connection's task is done with it; it closes the socket after this.
    func left(_ id: ControlAdmission.ID) {
        state.withLock { state in
            state.admission.left(id)
            state.sockets[id] = nil
        }
    }
}
