package import ApsioCore
package import ApsioPlatform

/// Which of the shared journal's readers serves each app's ingest, and how far each app has had
/// its entries: the decisions of `JournalHub`, without its I/O (docs/ingest.md, "One reader").
///
/// The tail reader reads every app's entries as they are written (live needs them all anyway).
/// An app at the tail gets its part of each batch; an app that cannot take it (its window is full:
/// its backend is down, slow or holding) is parked where it stood, and the tail goes on without
/// it. A parked app that wants entries again is behind: the catch-up reader serves it from its
/// position, and it rejoins the tail once the tail has read none of its entries that the catch-up
/// has not handed over. An entry is never handed over twice, and none is skipped.
package struct JournalPlacement: Sendable {
    package enum Place: Sendable, Equatable {
        /// Served by the tail reader.
        case tail
        /// Served by no reader: it does not want entries now.
        case parked
        /// Served by the catch-up reader.
        case behind
    }

    package struct App: Sendable, Equatable {
        package var place: Place = .parked
        /// What the app has been handed: the entries up to here, or none yet (`.head`).
        package var position: JournalStartPoint
        /// The last of the app's entries the tail read, handed over or not.
        var tailSeen: String?
        /// After rejoining: the tail's entries up to here were handed over by the catch-up reader.
        var duplicatesThrough: JournalPosition?
    }

    package private(set) var apps: [String: App] = [:]

    package init() {}

    /// An app that wants entries after `position`: parked until it asks for them.
    package mutating func add(_ id: String, at position: JournalStartPoint) {
        apps[id] = App(position: position)
    }

    package mutating func remove(_ id: String) {
        apps[id] = nil
    }

    package func place(of id: String) -> Place? { apps[id]?.place }

    package var behind: [String] { apps.filter { $0.value.place == .behind }.map(\.key).sorted() }
    package var parked: [String] { apps.filter { $0.value.place == .parked }.map(\.key).sorted() }

    // MARK: The tail

    /// The tail read the app's entries through `cursor` (its last one, delivered or below its
    /// floor), and made `records` of them: what to hand over, or nil when the app is not at the
    /// tail or has had all of it.
    package mutating func tailRead(_ id: String, records: [LogRecord], through cursor: String) -> JournalBatch? {
        guard var app = apps[id] else { return nil }
        app.tailSeen = cursor
        defer { apps[id] = app }
        guard app.place == .tail else { return nil }
        var records = records
        if let seen = app.duplicatesThrough {
            // The catch-up reader went further than the tail had when the app rejoined.
            guard let last = JournalPosition(cursor: cursor), last.isAfter(seen) else { return nil }
            records.removeAll { record in
                guard let position = record.journalCursor.flatMap(JournalPosition.init(cursor:)) else { return false }
                return !position.isAfter(seen)
            }
            app.duplicatesThrough = nil
        }
        return JournalBatch(records: records.isEmpty ? [:] : [id: records], cursors: [id: cursor])
    }

    /// The app took what it was handed, through `cursor`.
    package mutating func handedOver(_ id: String, through cursor: String) {
        apps[id]?.position = .after(cursor: cursor)
    }

    /// The app could not take its part: it stays where it stood, and no reader serves it.
    package mutating func park(_ id: String) {
        guard apps[id] != nil else { return }
        apps[id]?.place = .parked
        apps[id]?.duplicatesThrough = nil
    }

    // MARK: The catch-up reader

    /// A parked app asks for entries: the catch-up reader serves it from its position.
    package mutating func fallBehind(_ id: String) {
        guard apps[id]?.place == .parked else { return }
        apps[id]?.place = .behind
    }

    /// The catch-up reader has read everything there is for the app: it moves to the tail, unless
    /// the tail has read an entry of the app's the catch-up reader has not handed over (written
    /// meanwhile; the catch-up reader reads on). Returns whether it moved.
    package mutating func join(_ id: String) -> Bool {
        guard var app = apps[id], app.place == .behind else { return false }
        let had: JournalPosition?
        switch app.position {
        case .head: had = nil
        case .after(let cursor):
            // A cursor this code cannot read: the app rejoins, and the backend drops by
            // `log.record.uid` what the tail hands over twice.
            guard let position = JournalPosition(cursor: cursor) else {
                app.place = .tail
                apps[id] = app
                return true
            }
            had = position
        }
        if let seen = app.tailSeen.flatMap(JournalPosition.init(cursor:)) {
            guard let had, !seen.isAfter(had) else { return false }
        }
        app.place = .tail
        app.duplicatesThrough = had
        apps[id] = app
        return true
    }
}
