package import ApsioCore
package import ApsioRedaction
import Synchronization

/// The redaction of one app's live lines, kept across batches so a private key split over entries
/// is caught whichever batch each line came in.
package final class LiveRedaction: Sendable {
    private let stream: Mutex<RedactionStream>

    package init(redactor: Redactor) {
        stream = Mutex(RedactionStream(redactor: redactor))
    }

    package func redact(_ records: [LogRecord]) -> [LogRecord] {
        stream.withLock { stream in records.map { stream.redact($0) } }
    }
}
