/// Who gets a place on the control socket, and whose place is taken when none is left
/// (docs/control.md, "Connections"): events in, decisions out, no clock and no I/O, so the rule is
/// tested on its own and the server only carries its decisions out.
///
/// Connections are counted per user, from the kernel's credentials of the peer. Without such a
/// rule one local user holding every place with `watch`es (which are never closed for idling) or
/// with half a request kept the operator from turning live inspection off:
/// - the operators (root and the admin group, `ControlAccess.mayChange`) always have
///   `reservedForOperators` places that no other user may take;
/// - any other user holds at most `perUser`; one more of theirs takes the place of their own
///   oldest held connection, so a user at the cap only ever crowds out themselves;
/// - when the other users' places are all taken, a newcomer takes the place of the user holding
///   the most, when that user holds at least two more than the newcomer's user;
/// - when every place is taken, an operator takes the place of the oldest held connection of
///   another user, else of the operator holding the most.
///
/// A connection "held" is one waiting for its next request (idle, or half a line in) or a `watch`:
/// one being answered is never let go, so a request in progress is never cut off. A connection let
/// go is closed at once by the server; until it is gone it still counts against `maxLettingGo`.
package struct ControlAdmission: Sendable {
    package struct Limits: Sendable, Equatable {
        /// Places in all, the operators' reserve included.
        package var total: Int
        /// Places only the operators may take.
        package var reservedForOperators: Int
        /// Places one user who is not an operator may hold.
        package var perUser: Int
        /// Connections let go and not yet closed; past this another user's newcomer is refused
        /// rather than let go of one more.
        package var maxLettingGo: Int

        package init(total: Int, reservedForOperators: Int, perUser: Int, maxLettingGo: Int) {
            self.total = total
            self.reservedForOperators = reservedForOperators
            self.perUser = perUser
            self.maxLettingGo = maxLettingGo
        }
    }

    /// One admitted connection, numbered in the order they came: a lower id is older.
    package struct ID: Sendable, Hashable, Comparable, CustomStringConvertible {
        package let rawValue: UInt64
        package init(_ rawValue: UInt64) { self.rawValue = rawValue }
        package static func < (a: ID, b: ID) -> Bool { a.rawValue < b.rawValue }
        package var description: String { "#\(rawValue)" }
    }

    package enum Decision: Sendable, Equatable {
        /// Serve the newcomer as `id`; first close `lettingGo`, whose place it takes.
        case admit(ID, lettingGo: ID?)
        /// Tell the newcomer `busy` and close it.
        case refuse
    }

    /// What a connection is doing, which decides whether it may be let go.
    package enum Activity: Sendable, Equatable {
        /// Reading its next request: idle, or part of a line in.
        case waiting
        /// A request read and not yet answered.
        case answering
        /// After `watch`: only events go out.
        case watching
    }

    private struct Entry {
        var user: UInt32
        var isOperator: Bool
        var activity: Activity
    }

    package let limits: Limits
    private var held: [ID: Entry] = [:]
    private var lettingGo: Set<ID> = []
    private var nextID: UInt64 = 1

    package init(limits: Limits) {
        self.limits = limits
    }

    /// Connections served now: held or answering, not counting those let go.
    package var count: Int { held.count }
    /// Connections let go and not yet closed.
    package var lettingGoCount: Int { lettingGo.count }

    /// How many places `user` holds now.
    package func count(of user: UInt32) -> Int {
        held.values.count { $0.user == user }
    }

    /// A new connection from `user`; `isOperator` when it may change settings.
    package mutating func arrive(user: UInt32, isOperator: Bool) -> Decision {
        let victim: ID?
        if isOperator {
            guard held.count >= limits.total else { return admit(user, isOperator: true, lettingGo: nil) }
            guard let chosen = oldestHeld({ !$0.isOperator }) ?? heaviestOperatorsOldest() else { return .refuse }
            victim = chosen
        } else {
            let mine = count(of: user)
            if mine >= limits.perUser {
                // Only their own: a user at the cap crowds out nobody else.
                victim = oldestHeld { !$0.isOperator && $0.user == user }
            } else if held.values.count(where: { !$0.isOperator }) >= limits.total - limits.reservedForOperators {
                victim = fairerPlace(for: user, holding: mine)
            } else if held.count >= limits.total {
                // The operators hold more than their reserve: theirs to keep.
                return .refuse
            } else {
                return admit(user, isOperator: false, lettingGo: nil)
            }
            guard victim != nil, lettingGo.count < limits.maxLettingGo else { return .refuse }
        }
        return admit(user, isOperator: isOperator, lettingGo: victim)
    }

    /// The connection's activity changed; nothing for one let go or gone.
    package mutating func set(_ id: ID, _ activity: Activity) {
        held[id]?.activity = activity
    }

    /// The connection is closed (its own end, a failure, or after it was let go).
    package mutating func left(_ id: ID) {
        held[id] = nil
        lettingGo.remove(id)
    }

    // MARK: Choosing

    private mutating func admit(_ user: UInt32, isOperator: Bool, lettingGo victim: ID?) -> Decision {
        if let victim {
            held[victim] = nil
            lettingGo.insert(victim)
        }
        let id = ID(nextID)
        nextID += 1
        held[id] = Entry(user: user, isOperator: isOperator, activity: .waiting)
        return .admit(id, lettingGo: victim)
    }

    /// The oldest connection that may be let go among those `matching`.
    private func oldestHeld(_ matching: (Entry) -> Bool) -> ID? {
        held.filter { $0.value.activity != .answering && matching($0.value) }.keys.min()
    }

    /// Another user's place for a newcomer of `user`, who holds `mine`, when the other users'
    /// places are all taken: the oldest held of whoever holds the most, when taking it is fairer
    /// (that user keeps at least as many as the newcomer's user then has).
    private func fairerPlace(for user: UInt32, holding mine: Int) -> ID? {
        var counts: [UInt32: Int] = [:]
        for entry in held.values where !entry.isOperator { counts[entry.user, default: 0] += 1 }
        // The heaviest first; among equals, the one whose oldest connection is older.
        let order = counts.filter { $0.value >= mine + 2 }.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            return (oldestHeld { !$0.isOperator && $0.user == a.key } ?? ID(.max))
                < (oldestHeld { !$0.isOperator && $0.user == b.key } ?? ID(.max))
        }
        for (other, _) in order {
            if let id = oldestHeld({ !$0.isOperator && $0.user == other }) { return id }
        }
        return nil
    }

    /// When only operators hold places: the oldest held of the operator holding the most.
    private func heaviestOperatorsOldest() -> ID? {
        var counts: [UInt32: Int] = [:]
        for entry in held.values where entry.isOperator { counts[entry.user, default: 0] += 1 }
        for (user, _) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            if let id = oldestHeld({ $0.isOperator && $0.user == user }) { return id }
        }
        return nil
    }
}
