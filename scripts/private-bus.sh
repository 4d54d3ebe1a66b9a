# Sourced by the demo and the idle benchmark, which run apsiod against python-dbusmock on a private
# system bus (as the tests do: systemd itself is never started).
#
# private_bus_config DIR: writes DIR/bus.conf, a system bus listening on DIR/bus.sock that lets
# anyone own names and call and watch anything, for one mock and one client.
private_bus_config() {
    cat >"$1/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=$1/bus.sock</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy></busconfig>
CONF
}

# start_private_bus DIR: that bus and python-dbusmock's systemd on it, both in the background;
# their pids appended to the caller's `pids` array (stopped by it), DBUS_SYSTEM_BUS_ADDRESS
# exported. Returns once the mock answers.
start_private_bus() {
    private_bus_config "$1"
    dbus-daemon --config-file="$1/bus.conf" --nofork --print-address=1 > "$1/bus.address" &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$1/bus.address" ] && break; sleep 0.1; done
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$1/bus.sock"
    python3 -m dbusmock --system --template systemd > "$1/mock.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.systemd1 >/dev/null 2>&1 && break
        sleep 0.1
    done
}
