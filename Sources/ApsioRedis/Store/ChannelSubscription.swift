package import ApsioCore

/// Channels of a store's pub/sub an owner listens on, added and let go while it runs: Redis's
/// sharded pub/sub (`RedisShardedSubscriber`) or this process's. Messages come to the callbacks
/// the subscription was made with; what is published while a channel is not yet confirmed (or
/// while a connection is away) is lost, as for any pub/sub, and the subscription says when its
/// channels are in place again so that the owner reads what it may have missed.
package protocol ChannelSubscription: Sendable {
    /// Whether every channel is subscribed now.
    var isConnected: Bool { get }
    func subscribe(_ channels: [String])
    func unsubscribe(_ channels: [String])
    /// Returns true once `channel` is in place (what is published from then on is heard), false
    /// at `deadline` or when the task is cancelled.
    func waitUntilConfirmed(_ channel: String, until deadline: MonotonicInstant) async -> Bool
    func start()
    func stop()
    /// Returns once a stopped subscription has let every connection go.
    func stopped() async
}

/// Makes a subscription that hands each message to `onMessage` (which must not block) and calls
/// `onSubscribed` each time its channels are in place again; its tasks prefer `executor`.
package typealias ChannelSubscribing = @Sendable (
    _ executor: (any TaskExecutor)?, _ onMessage: @escaping @Sendable (RedisSubscriber.Message) -> Void,
    _ onSubscribed: @escaping @Sendable () -> Void
) -> any ChannelSubscription

extension RedisShardedSubscriber: ChannelSubscription {}
