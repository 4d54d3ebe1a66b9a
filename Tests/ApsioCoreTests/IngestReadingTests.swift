import ApsioCore
import ApsioTestSupport
import Testing

/// LINUX-PROFILE §9, §11, §15: when an app's ingest reads its journal, and the skips that keep what
/// was written while it was withheld from ever leaving.
@Suite struct IngestReadingTests {
    /// A reading whose runtime answers at once: a subscription opens, a skip ends.
    private struct Harness {
        var reading = IngestReading()
        var log: [IngestReadingAction] = []

        @discardableResult
        mutating func send(_ event: IngestReadingEvent) -> [IngestReadingAction] {
            let actions = reading.handle(event)
            log += actions
            return actions
        }

        /// Sends `event`, then answers every `.subscribe` and `.skipToEnd` it leads to, as the
        /// exporter does; returns every action in order.
        @discardableResult
        mutating func run(_ event: IngestReadingEvent, subscriptionOpens: Bool = true) -> [IngestReadingAction] {
            var all: [IngestReadingAction] = []
            var pending = send(event)[...]
            while let action = pending.popFirst() {
                all.append(action)
                switch action {
                case .subscribe: pending += send(.subscribed(subscriptionOpens))
                case .skipToEnd: pending += send(.skipped)
                default: break
                }
            }
            return all
        }

        /// Started with consent granted and a policy without the switch: reading.
        static func reading() -> Harness {
            var h = Harness()
            h.run(.consent(granted: true))
            h.run(.started(withheldWhenLastRun: false, endAtSetupKnown: true))
            return h
        }
    }

    @Test func nothingIsReadBeforeConsentIsKnown() {
        var h = Harness()
        #expect(h.run(.started(withheldWhenLastRun: false, endAtSetupKnown: true)) == [.subscribe, .setStalled(true)])
        #expect(h.reading.phase == .waitingForConsent)
        #expect(h.run(.consent(granted: true)) == [.startReader, .setStalled(false)])
        #expect(h.reading.phase == .reading)
        #expect(h.reading.readerGoesOn)
    }

    /// Refused from the start: the queue of the run before goes, and what the journal holds is
    /// skipped before anything could be read.
    @Test func consentFirstRefusedDropsTheQueueAndSkipsBeforeReading() {
        var h = Harness()
        #expect(h.run(.consent(granted: false)) == [.dropQueue, .markWithheld])
        #expect(h.run(.started(withheldWhenLastRun: false, endAtSetupKnown: true)) == [.skipToEnd, .subscribe, .setStalled(true)])
        #expect(h.reading.phase == .withheld)
        #expect(!h.log.contains(.startReader))
    }

    @Test func consentWithdrawnStopsReadingDropsTheQueueAndSkipsAndGrantedSkipsAgain() {
        var h = Harness.reading()
        #expect(
            h.run(.consent(granted: false))
                == [.dropQueue, .markWithheld, .stopReader, .unsubscribe, .skipToEnd, .subscribe, .setStalled(true)])
        #expect(h.reading.phase == .withheld)
        // Granted again: what was written meanwhile is skipped, and what comes after is read.
        #expect(h.run(.consent(granted: true)) == [.unsubscribe, .skipToEnd, .subscribe, .startReader, .setStalled(false)])
        #expect(h.reading.phase == .reading)
    }

    @Test func theKillSwitchWithholdsAsRefusedConsentDoes() {
        var h = Harness.reading()
        #expect(
            h.run(.killSwitch(true))
                == [.dropQueue, .markWithheld, .stopReader, .unsubscribe, .skipToEnd, .subscribe, .setStalled(true)])
        #expect(h.run(.killSwitch(true)) == [])
        #expect(h.run(.killSwitch(false)).contains(.startReader))
    }

    /// A change during a skip: the skip that ends is followed by another, not by reading.
    @Test func aChangeDuringASkipSkipsAgainBeforeSubscribing() {
        var h = Harness.reading()
        #expect(h.send(.consent(granted: false)).last == .skipToEnd)
        #expect(h.reading.phase == .skipping)
        // Neither a new room in the window nor a new reader starts reading during the skip.
        #expect(h.send(.window(hasRoom: true, sending: false)) == [])
        #expect(h.send(.readerReplaced) == [])
        #expect(h.send(.consent(granted: true)) == [])
        #expect(h.send(.skipped) == [.skipToEnd])
        #expect(h.send(.skipped) == [.subscribe])
        #expect(h.send(.subscribed(true)) == [.startReader, .setStalled(false)])
    }

    /// A subscription asked for before a skip began hands over what is from before the skip: when
    /// it opens during the skip it is closed, and nothing reads from it.
    @Test func aSubscriptionAskedForBeforeASkipIsClosedWhenItOpens() {
        var h = Harness()
        h.send(.consent(granted: true))
        #expect(h.send(.started(withheldWhenLastRun: false, endAtSetupKnown: true)) == [.subscribe])
        #expect(h.send(.killSwitch(true)) == [.dropQueue, .markWithheld, .skipToEnd])
        #expect(h.send(.subscribed(true)) == [.unsubscribe])
        #expect(h.send(.killSwitch(false)) == [])
        #expect(h.send(.window(hasRoom: true, sending: false)) == [])
        #expect(h.send(.skipped) == [.skipToEnd])
        #expect(h.send(.skipped) == [.subscribe])
        #expect(h.send(.subscribed(true)) == [.startReader, .setStalled(false)])
    }

    /// Withheld when apsiod last ran and released meanwhile: reading starts where the journal ended
    /// when the app was set up; not known, or still withheld, the journal is skipped.
    @Test func aPositionWithheldByTheRunBeforeIsReleasedOrSkipped() {
        var released = Harness()
        released.run(.consent(granted: true))
        #expect(released.run(.started(withheldWhenLastRun: true, endAtSetupKnown: true)).prefix(2) == [.releaseWithheld, .subscribe])

        var endUnknown = Harness()
        endUnknown.run(.consent(granted: true))
        #expect(endUnknown.run(.started(withheldWhenLastRun: true, endAtSetupKnown: false)).first == .skipToEnd)

        var stillWithheld = Harness()
        stillWithheld.run(.killSwitch(true))
        let actions = stillWithheld.run(.started(withheldWhenLastRun: true, endAtSetupKnown: true))
        #expect(actions.first == .skipToEnd)
        #expect(!actions.contains(.releaseWithheld))
    }

    /// The reader ends after the batch that fills the window; the shared reader is told the app is
    /// stalled only once nothing is on its way to the backend either.
    @Test func aFullWindowEndsTheReaderAndRoomStartsItAgain() {
        var h = Harness.reading()
        #expect(h.send(.window(hasRoom: false, sending: true)) == [])
        #expect(!h.reading.readerGoesOn)
        #expect(h.reading.phase == .full)
        #expect(h.send(.window(hasRoom: false, sending: false)) == [.setStalled(true)])
        #expect(h.send(.window(hasRoom: true, sending: false)) == [.startReader, .setStalled(false)])
    }

    /// A journal that fails every read is not read in a loop: the next event tries again.
    @Test func aFailedReadIsTriedAgainAtTheNextEvent() {
        var h = Harness.reading()
        #expect(h.send(.readerFailed) == [])
        #expect(h.reading.phase == .idle)
        #expect(h.send(.window(hasRoom: true, sending: true)) == [.startReader])
    }

    @Test func aReplacedReaderIsSubscribedToFromWhereTheAppStands() {
        var h = Harness.reading()
        #expect(h.run(.readerReplaced) == [.stopReader, .subscribe, .startReader, .setStalled(false)])
        // A shared reader that does not follow the app: nothing is read, nothing told.
        #expect(h.run(.readerReplaced, subscriptionOpens: false) == [.stopReader, .subscribe])
        #expect(h.reading.phase == .idle)
    }

    @Test func aStoppedReadingDoesNothingMore() {
        var h = Harness.reading()
        #expect(h.send(.stop) == [.stopReader, .unsubscribe])
        #expect(h.reading.phase == .stopped)
        for event: IngestReadingEvent in [.consent(granted: false), .killSwitch(true), .window(hasRoom: true, sending: false), .readerReplaced, .skipped] {
            #expect(h.send(event) == [])
        }
    }

    /// Random histories against a runtime that answers late: the reading never asks for what the
    /// runtime cannot do (two readers, a reader without a subscription, a reader while withheld or
    /// skipping, a skip during a skip), and a change of the window asks only for what can be done
    /// at once.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomHistoriesKeepTheRuntimeConsistent(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var reading = IngestReading()
        var readerRuns = false
        var subscribed = false
        var subscribing = false
        var skipping = false
        var stopped = false
        var consent: Bool?
        var killSwitch = false
        for step in 0..<4000 {
            let event: IngestReadingEvent
            switch random.next() % 11 {
            case 0: event = .consent(granted: random.next() % 3 != 0)
            case 1: event = .killSwitch(random.next() % 4 == 0)
            case 2: event = .started(withheldWhenLastRun: random.next() % 2 == 0, endAtSetupKnown: random.next() % 2 == 0)
            case 3 where subscribing: event = .subscribed(random.next() % 8 != 0)
            case 4 where skipping: event = .skipped
            case 5 where readerRuns: event = .readerFailed
            case 6: event = .readerReplaced
            case 7 where step > 3500: event = .stop
            default: event = .window(hasRoom: random.next() % 3 != 0, sending: random.next() % 2 == 0)
            }
            switch event {
            case .consent(let granted): consent = granted
            case .killSwitch(let on): killSwitch = on
            case .subscribed(let open):
                // The runtime closes what opens after the stop; the reading closes a voided one.
                subscribing = false
                subscribed = open && !stopped
            case .skipped: skipping = false
            case .readerFailed: readerRuns = false
            case .window(let hasRoom, _): if !hasRoom { readerRuns = false }
            case .stop: stopped = true
            default: break
            }
            let actions = reading.handle(event)
            if case .window = event {
                #expect(actions.allSatisfy { $0 == .startReader || $0 == .setStalled(true) || $0 == .setStalled(false) }, "seed \(seed) step \(step)")
            }
            for action in actions {
                switch action {
                case .startReader:
                    #expect(!readerRuns && subscribed && !skipping, "seed \(seed) step \(step): \(action)")
                    #expect(consent == true && !killSwitch, "seed \(seed) step \(step): read while withheld")
                    readerRuns = true
                case .stopReader:
                    readerRuns = false
                case .subscribe:
                    #expect(!skipping, "seed \(seed) step \(step): subscribed during a skip")
                    subscribing = true
                    subscribed = false
                case .unsubscribe:
                    subscribed = false
                case .skipToEnd:
                    #expect(!skipping && !readerRuns && !subscribed, "seed \(seed) step \(step): \(action)")
                    skipping = true
                case .setStalled, .dropQueue, .markWithheld, .releaseWithheld:
                    break
                }
            }
            if stopped { #expect(!readerRuns && !subscribed) }
            // Withheld, no reader is left running once the event is handled.
            if consent != true || killSwitch { #expect(!readerRuns, "seed \(seed) step \(step): a reader while withheld") }
        }
    }
}
