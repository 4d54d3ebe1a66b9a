package import ApsioPlatform
package import ApsioState

/// Why an app's exporter could not start, in words an operator can act on.
package enum AppExporterError: Error, Equatable, CustomStringConvertible {
    case state(StateStoreError)
    case queue(RecordQueueError)
    case journal(JournalError)
    /// The daemon's journal reader could not be opened (its error was logged then).
    case noJournal

    package var description: String {
        switch self {
        case .state(let error): "ingest: \(error)"
        case .queue(let error): "ingest: \(error)"
        case .journal(let error): "ingest: cannot read the journal: \(error)"
        case .noJournal: "ingest: the journal cannot be read"
        }
    }
}
