import ApsioCore
package import ApsioRedis
import Synchronization

/// Pub/sub in this process, for the fleet's stores kept in memory: what `publish` is given goes
/// at once to every started subscription of its channel, in the order it was published.
package final class MemoryChannels: Sendable {
    private let subscriptions = Mutex<[ObjectIdentifier: Subscription]>([:])
    /// Decides, for each message and subscription, whether it is lost on the way (a test's fault:
    /// a subscriber that missed a message, as Redis's may).
    private let loses = Mutex<(@Sendable (_ channel: String, _ subscription: Int) -> Bool)?>(nil)
    private let numbers = Mutex(0)

    package init() {}

    package func publish(_ channel: String, _ message: [UInt8]) {
        let listening = subscriptions.withLock { Array($0.values) }
        let lose = loses.withLock { $0 }
        for subscription in listening.sorted(by: { $0.number < $1.number }) where subscription.hears(channel) {
            if lose?(channel, subscription.number) == true { continue }
            subscription.onMessage(RedisSubscriber.Message(channel: channel, payload: message))
        }
    }

    /// From now on the messages for which `lose` is true do not reach the subscription numbered
    /// as given (in the order the subscriptions were made, from 0); nil: none is lost.
    package func lose(_ lose: (@Sendable (_ channel: String, _ subscription: Int) -> Bool)?) {
        loses.withLock { $0 = lose }
    }

    /// Makes subscriptions on these channels: `ChannelSubscribing`.
    package var subscribing: ChannelSubscribing {
        // Nothing of its own runs anywhere: a message is handed over in the publisher's call.
        { [self] _, onMessage, onSubscribed in
            let number = numbers.withLock { number in
                defer { number += 1 }
                return number
            }
            let subscription = Subscription(number: number, onMessage: onMessage, onSubscribed: onSubscribed) { [weak self] stopped in
                _ = self?.subscriptions.withLock { $0.removeValue(forKey: ObjectIdentifier(stopped)) }
            }
            subscriptions.withLock { $0[ObjectIdentifier(subscription)] = subscription }
            return subscription
        }
    }

    final class Subscription: ChannelSubscription {
        let number: Int
        let onMessage: @Sendable (RedisSubscriber.Message) -> Void
        private let onSubscribed: @Sendable () -> Void
        private let onStop: @Sendable (Subscription) -> Void
        private let state = Mutex((channels: Set<String>(), started: false, stopped: false))

        init(
            number: Int, onMessage: @escaping @Sendable (RedisSubscriber.Message) -> Void, onSubscribed: @escaping @Sendable () -> Void,
            onStop: @escaping @Sendable (Subscription) -> Void
        ) {
            self.number = number
            self.onMessage = onMessage
            self.onSubscribed = onSubscribed
            self.onStop = onStop
        }

        func hears(_ channel: String) -> Bool {
            state.withLock { $0.started && !$0.stopped && $0.channels.contains(channel) }
        }

        var isConnected: Bool { state.withLock { !$0.stopped } }

        func subscribe(_ channels: [String]) { state.withLock { $0.channels.formUnion(channels) } }

        func unsubscribe(_ channels: [String]) { state.withLock { $0.channels.subtract(channels) } }

        func waitUntilConfirmed(_ channel: String, until deadline: MonotonicInstant) async -> Bool {
            state.withLock { $0.started && !$0.stopped && $0.channels.contains(channel) }
        }

        func start() {
            let starting = state.withLock { state -> Bool in
                defer { state.started = true }
                return !state.started && !state.stopped
            }
            if starting { onSubscribed() }
        }

        func stop() {
            state.withLock { $0.stopped = true }
            onStop(self)
        }

        func stopped() async {}
    }
}
