/// What one app's runtime tells the indicator (16.2): viewers, notices, sessions.
public struct AppLiveEvent: Sendable, Equatable {
    public var app: String
    public var event: LiveHostEvent

    public init(app: String, event: LiveHostEvent) {
        self.app = app
        self.event = event
    }
}
