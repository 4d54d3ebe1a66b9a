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
