/// One built-in redaction rule: what a redacted value is replaced with names it
/// (`[REDACTED:github-token]`), so a viewer sees what was hidden and why. The names are stable: an
/// app file's `RedactRules=` and an operator's dashboards use them (docs/redaction.md gives each
/// its reason).
package enum RedactionRule: String, Sendable, CaseIterable, Comparable {
    // Credentials in every common syntax.
    case authorizationHeader = "authorization-header"
    case bearerToken = "bearer-token"
    case password
    case secret
    case token
    case apiKey = "api-key"
    case urlUserinfo = "url-userinfo"
    case privateKey = "private-key"
    case jwt

    // Cloud credentials.
    case awsAccessKeyID = "aws-access-key-id"
    case awsSecretAccessKey = "aws-secret-access-key"
    case googleAPIKey = "google-api-key"
    case azureStorageKey = "azure-storage-key"

    // Service tokens, by their documented prefixes.
    case githubToken = "github-token"
    case gitlabToken = "gitlab-token"
    case slackToken = "slack-token"
    case slackWebhook = "slack-webhook"
    case stripeKey = "stripe-key"
    case sendgridKey = "sendgrid-key"
    case twilioKey = "twilio-key"
    case npmToken = "npm-token"
    case pypiToken = "pypi-token"

    // Payment.
    case cardNumber = "card-number"

    // Personal data: off unless the app file turns it on.
    case email
    case ipv4
    case ipv6

    package var name: String { rawValue }

    package var group: RedactionRuleGroup {
        switch self {
        case .authorizationHeader, .bearerToken, .password, .secret, .token, .apiKey, .urlUserinfo, .privateKey, .jwt:
            .credentials
        case .awsAccessKeyID, .awsSecretAccessKey, .googleAPIKey, .azureStorageKey: .cloud
        case .githubToken, .gitlabToken, .slackToken, .slackWebhook, .stripeKey, .sendgridKey, .twilioKey, .npmToken,
            .pypiToken:
            .serviceTokens
        case .cardNumber: .payment
        case .email, .ipv4, .ipv6: .personal
        }
    }

    /// The marker a value of this rule becomes.
    package var marker: String { "[REDACTED:\(rawValue)]" }

    /// The rule's place in a `RedactionRuleSet`: a switch, so the scanner's checks cost nothing.
    var ordinal: Int {
        switch self {
        case .authorizationHeader: 0
        case .bearerToken: 1
        case .password: 2
        case .secret: 3
        case .token: 4
        case .apiKey: 5
        case .urlUserinfo: 6
        case .privateKey: 7
        case .jwt: 8
        case .awsAccessKeyID: 9
        case .awsSecretAccessKey: 10
        case .googleAPIKey: 11
        case .azureStorageKey: 12
        case .githubToken: 13
        case .gitlabToken: 14
        case .slackToken: 15
        case .slackWebhook: 16
        case .stripeKey: 17
        case .sendgridKey: 18
        case .twilioKey: 19
        case .npmToken: 20
        case .pypiToken: 21
        case .cardNumber: 22
        case .email: 23
        case .ipv4: 24
        case .ipv6: 25
        }
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.ordinal < rhs.ordinal }
}

/// Rules that go together, for `RedactRules=`: every group is on by default but `personal`, since
/// many operators need the addresses in their logs.
package enum RedactionRuleGroup: String, Sendable, CaseIterable {
    case credentials
    case cloud
    case serviceTokens = "service-tokens"
    case payment
    case personal

    package var isOnByDefault: Bool { self != .personal }

    package var rules: [RedactionRule] { RedactionRule.allCases.filter { $0.group == self } }
}
