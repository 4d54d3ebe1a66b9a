/// HTTP-date (RFC 9110 5.6.7) read into Unix seconds: the IMF-fixdate every current server writes,
/// and the two obsolete forms a recipient must still accept (RFC 850 and asctime). Pure: it reads
/// no clock, and a date that is not one of these forms is nil, never a guess.
package enum HTTPDate {
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func unixSeconds(_ text: String) -> Int? {
        imfFixdate(text) ?? rfc850(text) ?? asctime(text)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ text: String) -> Int? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].hasSuffix(","), weekdays.contains(String(parts[0].dropLast())),
            parts[5] == "GMT", parts[1].count == 2, parts[3].count == 4,
            let day = number(parts[1]), let month = month(parts[2]), let year = number(parts[3])
        else { return nil }
        return compose(year: year, month: month, day: day, time: parts[4])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a two-digit year is 19xx from 70 on, 20xx before.
    private static func rfc850(_ text: String) -> Int? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].hasSuffix(","), longWeekdays.contains(String(parts[0].dropLast())),
            parts[3] == "GMT"
        else { return nil }
        let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 2, date[2].count == 2,
            let day = number(date[0]), let month = month(date[1]), let shortYear = number(date[2])
        else { return nil }
        return compose(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month, day: day, time: parts[2])
    }

    /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space).
    private static func asctime(_ text: String) -> Int? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 24, utf8[3] == 0x20, utf8[7] == 0x20, utf8[10] == 0x20, utf8[19] == 0x20 else { return nil }
        let weekday = String(decoding: utf8[0..<3], as: UTF8.self)
        let monthText = String(decoding: utf8[4..<7], as: UTF8.self)
        var dayBytes = utf8[8..<10]
        if dayBytes.first == 0x20 { dayBytes = dayBytes.dropFirst() }
        guard weekdays.contains(weekday), let month = month(Substring(monthText)),
            let day = number(Substring(String(decoding: dayBytes, as: UTF8.self))),
            let year = number(Substring(String(decoding: utf8[20..<24], as: UTF8.self)))
        else { return nil }
        return compose(year: year, month: month, day: day, time: Substring(String(decoding: utf8[11..<19], as: UTF8.self)))
    }

    private static func compose(year: Int, month: Int, day: Int, time: Substring) -> Int? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            hour < 24, minute < 60, second <= 60,
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func month(_ text: Substring) -> Int? {
        months.firstIndex(of: String(text)).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
