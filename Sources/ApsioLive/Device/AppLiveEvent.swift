package import ApsioCore

/// What one app's runtime tells the indicator (16.2): viewers, notices, sessions.
package struct AppLiveEvent: Sendable, Equatable {
    package var app: AppName
    package var event: LiveHostEvent

    package init(app: AppName, event: LiveHostEvent) {
        self.app = app
        self.event = event
    }
}
