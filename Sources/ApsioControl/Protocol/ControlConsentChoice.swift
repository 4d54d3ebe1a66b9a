/// `apsioctl consent grant|deny`, as the control protocol spells it.
package enum ControlConsentChoice: String, Sendable, Equatable, CaseIterable {
    case grant
    case deny
}
