import ApsioCore
import Testing

/// Time as the wire, the files, Redis and systemd count it: whole units, toward zero, never
/// rounded up (a lifetime or a deadline said one unit longer than it is would be a promise broken).
@Suite struct DurationUnitsTests {
    @Test func wholeMillisecondsAndMicrosecondsTowardZero() {
        #expect(Duration.seconds(90).wholeMilliseconds == 90_000)
        #expect(Duration.milliseconds(1_500).wholeMilliseconds == 1_500)
        #expect(Duration.microseconds(1_999).wholeMilliseconds == 1)
        #expect(Duration.nanoseconds(999_999).wholeMilliseconds == 0)
        #expect(Duration.microseconds(-1_999).wholeMilliseconds == -1)
        #expect(Duration.seconds(-2).wholeMilliseconds == -2_000)
        #expect(Duration.seconds(3).wholeMicroseconds == 3_000_000)
        #expect(Duration.nanoseconds(2_999).wholeMicroseconds == 2)
        #expect(Duration.nanoseconds(-2_999).wholeMicroseconds == -2)
        #expect(Duration.zero.wholeMilliseconds == 0)
    }
}
