/// `apsioctl consent grant|deny`, as the control protocol spells it.
public enum ControlConsentChoice: String, Sendable, Equatable, CaseIterable {
    case grant
    case deny
}
