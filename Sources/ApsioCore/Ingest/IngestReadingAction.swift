/// What an app's `IngestReading` asks the runtime to do, in order.
package enum IngestReadingAction: Sendable, Equatable {
    /// Start the reader on the open subscription: it pulls batches into the window until
    /// `readerGoesOn` says no after one of them.
    case startReader
    /// Stop the reader and wait for it; the batch it was reading is dropped (its entries were not
    /// taken, so the cursor never moved past them).
    case stopReader
    /// Subscribe to the shared reader after what the app has taken (closing any subscription it
    /// held); answer with `.subscribed`. A skip may void it before the answer: `.subscribed` then
    /// asks for `.unsubscribe`.
    case subscribe
    /// Close the subscription: the shared reader holds nothing for the app.
    case unsubscribe
    /// Read the app's entries to the journal's end without keeping them, moving the saved position
    /// past them (saved withheld or not as the app stands now); answer with `.skipped`.
    case skipToEnd
    /// Start after where the journal ended when the app was set up, and save that position as
    /// released: consent was granted (or the switch turned off) while apsiod was stopped.
    case releaseWithheld
    /// Mark the saved position withheld and write it now, before anything else: a crash from here
    /// on must not start a later run where this one stood.
    case markWithheld
    /// Drop everything queued: the window and the record queue (consent refused, kill switch).
    case dropQueue
    /// Tell the shared reader whether the app can take entries for a while.
    case setStalled(Bool)
}
