import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// Pub/sub on a connection of its own: messages arrive, and after Redis comes back every channel
/// is subscribed again and the owner is told, since what was published meanwhile is gone.
@Suite struct RedisSubscriberTests {
    final class Received: Sendable {
        let messages = Mutex<[RedisSubscriber.Message]>([])
        let subscriptions = Mutex(0)
        let changes = ChangeSignal()

        var payloads: [String] { messages.withLock { $0.map { String(decoding: $0.payload, as: UTF8.self) } } }
        var subscribedCount: Int { subscriptions.withLock { $0 } }

        func subscriber(_ server: RedisServerFixture, clock: any AgentClock) throws -> RedisSubscriber {
            RedisSubscriber(
                endpoint: try RedisEndpoint(parsing: server.endpoint), clock: clock,
                onMessage: { message in
                    self.messages.withLock { $0.append(message) }
                    self.changes.notify()
                },
                onSubscribed: {
                    self.subscriptions.withLock { $0 += 1 }
                    self.changes.notify()
                })
        }
    }

    @Test func publishedMessagesArriveAndUnsubscribingStopsThem() async throws {
        let server = try RedisServerFixture()
        let received = Received()
        let subscriber = try received.subscriber(server, clock: SystemAgentClock())
        subscriber.subscribe(["apsio:one", "apsio:two"])
        subscriber.start()
        try await until("subscribed", on: [received.changes]) { received.subscribedCount == 1 }
        _ = try server.cli("PUBLISH", "apsio:one", "first")
        _ = try server.cli("PUBLISH", "apsio:other", "not subscribed")
        _ = try server.cli("PUBLISH", "apsio:two", "second")
        try await until("both messages", on: [received.changes]) { received.payloads.count == 2 }
        #expect(received.payloads == ["first", "second"])
        #expect(received.messages.withLock { $0.map(\.channel) } == ["apsio:one", "apsio:two"])

        subscriber.unsubscribe(["apsio:one"])
        // Confirmed from outside: Redis counts one subscriber left on the channel.
        try await poll("the unsubscribe applied") { (try? server.cli("PUBSUB", "NUMSUB", "apsio:one"))?.hasSuffix("0") ?? false }
        _ = try server.cli("PUBLISH", "apsio:one", "after unsubscribing")
        _ = try server.cli("PUBLISH", "apsio:two", "third")
        try await until("the third message", on: [received.changes]) { received.payloads.count == 3 }
        #expect(received.payloads.last == "third")
        subscriber.stop()
        await subscriber.stopped()
    }

    /// Redis restarted (empty): the subscriber connects again after its backoff, subscribes to
    /// every channel it had, and says so, so its owner reads the state again.
    @Test func afterARestartEveryChannelIsSubscribedAgainAndTheOwnerIsTold() async throws {
        let server = try RedisServerFixture()
        let clock = ManualAgentClock()
        let received = Received()
        let subscriber = try received.subscriber(server, clock: clock)
        subscriber.subscribe(["apsio:frames"])
        subscriber.start()
        try await until("subscribed", on: [received.changes]) { received.subscribedCount == 1 }
        try server.restart()
        // The subscriber sees its connection end, and sleeps on the clock until it tries again.
        try await clock.waitAsleep("the subscriber backing off") { !$0.isEmpty }
        clock.advance(by: .seconds(5))
        try await until("subscribed again", on: [received.changes, clock]) { received.subscribedCount == 2 }
        #expect(subscriber.isConnected)
        _ = try server.cli("PUBLISH", "apsio:frames", "after the restart")
        try await until("the message", on: [received.changes]) { received.payloads == ["after the restart"] }
        subscriber.stop()
        await subscriber.stopped()
    }

    /// Channels come and go while the sharded subscriber runs, as a fleet instance's devices do:
    /// one added is confirmed by Redis before `waitUntilConfirmed` returns, so what is published
    /// after that reaches it; one let go is no longer subscribed on the server.
    @Test func aChannelAddedWhileRunningIsConfirmedBeforeItIsUsedAndOneLetGoStops() async throws {
        let server = try RedisServerFixture()
        let client = RedisClient(seeds: [try RedisEndpoint(parsing: server.endpoint)], clock: SystemAgentClock(), timeout: .seconds(2))
        let received = Received()
        let subscriber = RedisShardedSubscriber(
            client: client, clock: SystemAgentClock(),
            onMessage: { message in
                received.messages.withLock { $0.append(message) }
                received.changes.notify()
            })
        subscriber.subscribe(["apsio:wake"])
        subscriber.start()
        // A bound for a test that would otherwise hang, as `until`'s: each wait returns at the
        // confirmation.
        let clock = SystemAgentClock()
        let wakeConfirmed = await subscriber.waitUntilConfirmed("apsio:wake", until: clock.now().mono + .seconds(120))
        #expect(wakeConfirmed)
        #expect(!subscriber.isConfirmed("apsio:device"))

        subscriber.subscribe(["apsio:device"])
        let deviceConfirmed = await subscriber.waitUntilConfirmed("apsio:device", until: clock.now().mono + .seconds(120))
        #expect(deviceConfirmed)
        // Published right after the confirmation, with no wait: it must arrive.
        _ = try server.cli("SPUBLISH", "apsio:device", "first")
        try await until("the message", on: [received.changes]) { received.payloads == ["first"] }

        subscriber.unsubscribe(["apsio:device"])
        try await poll("the channel let go on the server") {
            (try? server.cli("PUBSUB", "SHARDNUMSUB", "apsio:device"))?.hasSuffix("0") ?? false
        }
        #expect(!subscriber.isConfirmed("apsio:device"))
        #expect(try server.cli("PUBSUB", "SHARDNUMSUB", "apsio:wake").hasSuffix("1"), "the other channel stays")
        subscriber.stop()
        await subscriber.stopped()
        client.close()
    }
}
