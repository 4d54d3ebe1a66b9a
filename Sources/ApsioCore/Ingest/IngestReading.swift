/// Whether an app's ingest reads its journal entries now, and what the runtime does to get there
/// (LINUX-PROFILE §9, §11, §15): one value per app, events in, actions out, no I/O and no clock.
/// Beside it `IngestDelivery` decides when what was read leaves.
///
/// Nothing is read before consent is known. While consent is refused or the policy's kill switch
/// is on the app is withheld: its queue is dropped, its saved position marked withheld, and
/// nothing is read. Each change of the withholding, either way, first skips the journal to its
/// end: what was written while withheld never leaves, and reading starts again from the end. So
/// does consent first known refused, and a start that finds the position withheld by the run
/// before (unless the withholding was lifted meanwhile: then reading starts where the journal
/// ended when the app was set up, `.releaseWithheld`).
///
/// The reader pulls from the app's subscription to the daemon's shared reader while the read-ahead
/// window has room; after the batch that fills it the reader ends by itself, and the window's
/// next room starts it again. The shared reader is told the app is stalled while it may not read,
/// or while its window is full and nothing is on its way to the backend.
package struct IngestReading: Sendable {
    package enum Phase: Sendable, Equatable {
        case notStarted
        /// Started; consent is not known yet.
        case waitingForConsent
        /// A skip to the journal's end is under way or due.
        case skipping
        /// Consent refused or the kill switch on, the skip done: nothing is read.
        case withheld
        case reading
        /// The window is full: the reader waits for a batch to leave.
        case full
        /// Allowed to read, with room, but no reader: the shared reader does not follow the app,
        /// or the last read failed and the next event tries again.
        case idle
        case stopped
    }

    private var started = false
    private var stopped = false
    private var consent: Bool?
    private var killSwitch = false
    private var skipDue = false
    private var skipping = false
    /// A `.subscribe` waits for its answer. A skip or the stop voids it: its answer is then closed.
    private var subscribing = false
    private var subscribed = false
    private var reading = false
    private var windowHasRoom = true
    private var sending = false
    /// What the shared reader was last told; nil for a subscription not told yet.
    private var toldStalled: Bool?

    package init() {}

    /// Consent refused or the kill switch on: nothing may be kept or read.
    package var withheld: Bool { consent == false || killSwitch }

    /// Consent was told, granted or refused.
    package var consentKnown: Bool { consent != nil }

    /// Asked by the reader after each batch it handed over: whether it reads the next.
    package var readerGoesOn: Bool { reading }

    package var phase: Phase {
        if stopped { return .stopped }
        if !started { return .notStarted }
        if skipping || skipDue { return .skipping }
        if withheld { return .withheld }
        if consent == nil { return .waitingForConsent }
        if reading { return .reading }
        return windowHasRoom ? .idle : .full
    }

    private var mayRead: Bool { started && !stopped && consent == true && !withheld && !skipDue && !skipping }

    package mutating func handle(_ event: IngestReadingEvent) -> [IngestReadingAction] {
        guard !stopped else { return [] }
        var actions: [IngestReadingAction] = []
        switch event {
        case .started(let withheldWhenLastRun, let endAtSetupKnown):
            guard !started else { return [] }
            started = true
            if withheldWhenLastRun {
                if !withheld, endAtSetupKnown { actions.append(.releaseWithheld) } else { skipDue = true }
            }
            // A skip due subscribes when it ends.
            if !skipDue { subscribe(into: &actions) }
        case .consent(let granted):
            let wasWithheld = withheld
            let wasKnown = consent != nil
            consent = granted
            // Refused from the start: what the journal holds was never the app's to send.
            if !wasKnown, !granted { skipDue = true }
            withholdingMayHaveChanged(from: wasWithheld, into: &actions)
        case .killSwitch(let on):
            let wasWithheld = withheld
            killSwitch = on
            withholdingMayHaveChanged(from: wasWithheld, into: &actions)
        case .subscribed(let open):
            // Opened for a request a skip voided: what it would hand over is from before the skip.
            guard subscribing else { return open ? [.unsubscribe] : [] }
            subscribing = false
            subscribed = open
            toldStalled = nil
        case .skipped:
            guard skipping else { return [] }
            skipping = false
            // Another change came during the skip: skip again before subscribing.
            if !skipDue { subscribe(into: &actions) }
        case .readerFailed:
            // Not started again at once: a journal that fails every read would be read in a loop.
            reading = false
            return []
        case .window(let hasRoom, let sending):
            windowHasRoom = hasRoom
            self.sending = sending
            if !hasRoom { reading = false }
        case .readerReplaced:
            // During a skip the skip's end subscribes, to the new reader.
            guard started, !skipping, !skipDue else { return [] }
            if reading {
                reading = false
                actions.append(.stopReader)
            }
            subscribe(into: &actions)
        case .stop:
            stopped = true
            letGoOfTheReader(into: &actions)
            return actions
        }
        adjust(into: &actions)
        return actions
    }

    /// No reader, no subscription, and a subscription asked for void: before a skip, and at the stop.
    private mutating func letGoOfTheReader(into actions: inout [IngestReadingAction]) {
        if reading { actions.append(.stopReader) }
        if subscribed { actions.append(.unsubscribe) }
        reading = false
        subscribed = false
        subscribing = false
    }

    /// A new subscription replaces the one held or asked for: only its answer counts.
    private mutating func subscribe(into actions: inout [IngestReadingAction]) {
        subscribed = false
        subscribing = true
        actions.append(.subscribe)
    }

    /// Either way a change means a skip; on the way in the queue goes and the position is marked.
    private mutating func withholdingMayHaveChanged(from wasWithheld: Bool, into actions: inout [IngestReadingAction]) {
        guard withheld != wasWithheld else { return }
        skipDue = true
        if withheld { actions += [.dropQueue, .markWithheld] }
    }

    private mutating func adjust(into actions: inout [IngestReadingAction]) {
        guard started, !stopped else { return }
        if skipDue, !skipping {
            skipDue = false
            skipping = true
            letGoOfTheReader(into: &actions)
            actions.append(.skipToEnd)
            return
        }
        guard subscribed else { return }
        if !reading, mayRead, windowHasRoom {
            reading = true
            actions.append(.startReader)
        }
        let stalled = !mayRead || (!windowHasRoom && !sending)
        if stalled != toldStalled {
            toldStalled = stalled
            actions.append(.setStalled(stalled))
        }
    }
}
