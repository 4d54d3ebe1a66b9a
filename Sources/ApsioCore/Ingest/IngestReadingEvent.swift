/// What the runtime tells an app's `IngestReading`.
package enum IngestReadingEvent: Sendable, Equatable {
    /// The app is served: its start point is known. `withheldWhenLastRun`: the saved position was
    /// marked withheld (consent refused or the kill switch on when apsiod last ran);
    /// `endAtSetupKnown`: where the journal ended when the app was set up could be read.
    case started(withheldWhenLastRun: Bool, endAtSetupKnown: Bool)
    /// The app file's `Consent=`, or the operator's override.
    case consent(granted: Bool)
    /// The policy's `kill_switch` (12.3).
    case killSwitch(Bool)
    /// The shared reader answered the last `.subscribe` asked for: whether it follows the app's
    /// unit. The answer to an earlier one is not told (the runtime closes what it opened).
    case subscribed(Bool)
    /// The `.skipToEnd` asked for is over, whether or not it reached the end.
    case skipped
    /// The reader ended on an error; the next event that lets it read starts it again.
    case readerFailed
    /// The read-ahead window has room or not, and whether a batch is on its way to the backend.
    /// After the batch that fills the window the reader ends by itself (`readerGoesOn`).
    case window(hasRoom: Bool, sending: Bool)
    /// The daemon's shared reader was opened again: the app pulls from the new one.
    case readerReplaced
    /// apsiod stops serving the app; nothing is read again.
    case stop
}
