#!/bin/bash
# slurm-cluster.sh: a real single-node Slurm cluster in a folder, for the
# cluster tests (t9001) and the cluster benchmark (bench/slurm-class.sh).
#   slurm-cluster.sh up BASE [--fake-gpus N | --gpus N] [--shards S] [--accounting]
#   slurm-cluster.sh down BASE
# up writes BASE/slurm.conf (gres.conf, cgroup.conf) and BASE/env (source it:
# SLURM_CONF and PATH), starts munged on a socket of its own, slurmctld and
# slurmd on free loopback ports, and waits until the node is idle. N GPUs as
# Slurm gres: --fake-gpus makes device nodes under BASE/dev (open() gives
# ENXIO, so cgroup device isolation is testable without a GPU); --gpus names
# the machine's /dev/nvidia0..N-1; --shards S also offers S shards of them
# (gres shard: tasks that share a GPU); --accounting also starts a MariaDB
# server and slurmdbd of the cluster's own (on loopback ports, its data in
# BASE/db), enforces associations and their limits, and gives root an
# association (account "course"), so sacct answers and sacctmgr sets limits.
# ConstrainDevices=yes where the cgroup
# devices controller is mounted. Needs root. Exits 77, saying why, where
# Slurm cannot start here (no root, no Slurm, no cgroup v1 devices), so a
# test can skip; 1 when it should have and did not.
# Slurm's daemons and munged come from PATH, /usr/sbin, or $DEPS_PREFIX
# (Debian packages unpacked, not installed: the GPU machine's recipe).
set -u
cmd=${1:-} B=${2:-}
[ -n "$cmd" ] && [ -n "$B" ] || { echo "usage: $0 up|down BASE [--fake-gpus N | --gpus N]" >&2; exit 2; }
mkdir -p "$B" && B=$(cd "$B" && pwd)
pre=${DEPS_PREFIX:-}
export PATH="$PATH:/usr/sbin${pre:+:$pre/usr/bin:$pre/usr/sbin}"
# unpacked, Slurm's own library is not where its binaries' RPATH says
[ -z "$pre" ] || export LD_LIBRARY_PATH="$pre/usr/lib/x86_64-linux-gnu/slurm-wlm${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
skip() { echo "$*" >&2; exit 77; }

alive() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat")" != Z ]; }
if [ "$cmd" = down ]; then
	# PID 1 of a container may not reap: a zombie counts as gone
	for d in slurmd slurmctld slurmdbd mariadbd munged; do
		p=$B/run/$d.pid
		[ -s "$p" ] || continue
		pid=$(cat "$p")
		alive "$pid" && kill "$pid"
		for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" && kill -9 "$pid"
		rm -f "$p"
	done
	[ ! -s "$B/linked" ] || { rm -f "$(cat "$B/linked")"; rm -f "$B/linked"; }
	exit 0
fi
[ "$cmd" = up ] || { echo "$0: unknown command '$cmd'" >&2; exit 2; }
kind=fake ngpu=2 shards=0 acct=0
shift 2
while [ $# -gt 0 ]; do
	case $1 in
	--fake-gpus) ngpu=$2 ;;
	--gpus) kind=real ngpu=$2 ;;
	--shards) shards=$2 ;;
	--accounting) acct=1; shift; continue ;;
	*) echo "$0: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift 2
done

[ "$(id -u)" = 0 ] || skip "Slurm's daemons need root here (SlurmUser=root), and this is uid $(id -u)"
# unpacked, the daemons keep the names Debian's alternatives would link: slurmctld-wlm
daemon() { command -v "$1" || command -v "$1-wlm"; }
for d in slurmctld slurmd slurmstepd munged sbatch squeue; do
	daemon $d >/dev/null || skip "Slurm is not installed ($d not found; ci/debian-packages.txt lists slurm-wlm)"
done
if [ $acct = 1 ]; then
	for d in slurmdbd sacctmgr mariadbd mariadb-install-db; do
		daemon $d >/dev/null || skip "Slurm's accounting cannot run here ($d not found; ci/debian-packages.txt lists slurmdbd and mariadb-server)"
	done
fi
ctld=$(daemon slurmctld) slurmd=$(daemon slurmd)
# slurmd runs the slurmstepd its build names, /usr/sbin/slurmstepd: where only an
# unpacked one exists, link it there for as long as the cluster runs (down removes it)
if [ ! -e /usr/sbin/slurmstepd ]; then
	ln -s "$(daemon slurmstepd)" /usr/sbin/slurmstepd && echo /usr/sbin/slurmstepd >"$B/linked" ||
		skip "slurmd needs /usr/sbin/slurmstepd, and it cannot be linked there"
fi
plugins=
for dir in ${pre:+$pre/usr/lib/x86_64-linux-gnu/slurm-wlm} /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/slurm-wlm /usr/lib64/slurm; do
	[ -f "$dir/select_cons_tres.so" ] && { plugins=$dir; break; }
done
[ -n "$plugins" ] || skip "Slurm's plugins are not found"
constrain=no proctrack=proctrack/linuxproc task=task/none
if [ -d /sys/fs/cgroup/devices ] && [ -d /sys/fs/cgroup/freezer ]; then
	constrain=yes proctrack=proctrack/cgroup task=task/cgroup
elif [ $kind = fake ]; then
	skip "no cgroup v1 devices controller: Slurm cannot keep a job to its GPU here"
fi

mkdir -p "$B"/{spool/ctld,spool/d,log,run,dev,munge}
gpus=
for ((i = 0; i < ngpu; i++)); do
	if [ $kind = fake ]; then
		[ -e "$B/dev/nvidia$i" ] || mknod "$B/dev/nvidia$i" c 195 "$i" || skip "cannot make a device node (mknod)"
		gpus+=" $B/dev/nvidia$i"
	else
		[ -e "/dev/nvidia$i" ] || { echo "$0: no /dev/nvidia$i" >&2; exit 1; }
		gpus+=" /dev/nvidia$i"
	fi
done
# at least 8 CPUs (config_overrides: a small CI machine models a node), else the machine's
cpus=$(nproc)
[ "$cpus" -ge 8 ] || cpus=8
# four free loopback ports, for this cluster alone
read -r ctld_port d_port dbd_port db_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# munge: a key and a socket of this cluster's own
key=$B/munge/munge.key
[ -s "$key" ] || { head -c 1024 /dev/urandom >"$key" && chmod 0400 "$key"; }
chmod 0700 "$B/munge"
sock=$B/munge/munge.socket
munged --force --socket="$sock" --key-file="$key" --pid-file="$B/run/munged.pid" \
	--log-file="$B/log/munged.log" --seed-file="$B/munge/munge.seed" ||
	{ echo "$0: munged did not start: $(tail -n 3 "$B/log/munged.log" 2>/dev/null)" >&2; exit 1; }

shard_type= shard_gres=
[ "$shards" = 0 ] || shard_type=,shard shard_gres=,shard:$shards
cat >"$B/slurm.conf" <<CONF
ClusterName=cudalab
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
PluginDir=$plugins
StateSaveLocation=$B/spool/ctld
SlurmdSpoolDir=$B/spool/d
SlurmctldPidFile=$B/run/slurmctld.pid
SlurmdPidFile=$B/run/slurmd.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd.log
ProctrackType=$proctrack
TaskPlugin=$task
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
KillWait=5
MinJobAge=300
$(if [ $acct = 1 ]; then
	echo "AccountingStorageType=accounting_storage/slurmdbd"
	echo "AccountingStorageHost=localhost"
	echo "AccountingStoragePort=$dbd_port"
	echo "AccountingStorageEnforce=associations,limits"
	echo "AccountingStoragePass=$sock"   # the munge socket, for slurmdbd's clients
else
	echo "AccountingStorageType=accounting_storage/none"
fi)
JobAcctGatherType=jobacct_gather/none
GresTypes=gpu$shard_type
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=65536 Gres=gpu:$ngpu$shard_gres State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
{
	echo "AutoDetect=off"
	for g in $gpus; do echo "NodeName=localhost Name=gpu File=$g"; done
	[ "$shards" = 0 ] || echo "NodeName=localhost Name=shard Count=$shards File=${gpus# }"
} >"$B/gres.conf"
cat >"$B/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupAutomount=yes
ConstrainCores=no
ConstrainDevices=$constrain
ConstrainRAMSpace=no
CONF
cat >"$B/env" <<ENV
export SLURM_CONF='$B/slurm.conf'
export PATH="\$PATH:/usr/sbin${pre:+:$pre/usr/bin:$pre/usr/sbin}"
${pre:+export LD_LIBRARY_PATH="$LD_LIBRARY_PATH"}
ENV
export SLURM_CONF=$B/slurm.conf
if [ $acct = 1 ]; then
	# MariaDB with no grant tables (it listens on loopback only), then
	# slurmdbd on it, then the cluster, an account and root's association
	if [ ! -d "$B/db/data/mysql" ]; then
		mkdir -p "$B/db" &&
		mariadb-install-db --no-defaults --datadir="$B/db/data" --user=root \
			--skip-test-db >"$B/log/mariadb-install.log" 2>&1 ||
			{ echo "$0: mariadb-install-db failed: $(tail -n 3 "$B/log/mariadb-install.log")" >&2; exit 1; }
	fi
	"$(daemon mariadbd)" --no-defaults --datadir="$B/db/data" --user=root --skip-grant-tables \
		--bind-address=127.0.0.1 --port="$db_port" --socket="$B/run/mariadb.sock" \
		--pid-file="$B/run/mariadbd.pid" --log-error="$B/log/mariadbd.log" </dev/null >/dev/null 2>&1 &
	for _ in $(seq 300); do [ -S "$B/run/mariadb.sock" ] && break; sleep 0.1; done
	[ -S "$B/run/mariadb.sock" ] || { echo "$0: mariadbd did not start: $(tail -n 3 "$B/log/mariadbd.log")" >&2; exit 1; }
	cat >"$B/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$sock
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
PidFile=$B/run/slurmdbd.pid
LogFile=$B/log/slurmdbd.log
PluginDir=$plugins
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=slurm_acct_db
CONF
	chmod 600 "$B/slurmdbd.conf"
	"$(daemon slurmdbd)" || { echo "$0: slurmdbd did not start: $(tail -n 5 "$B/log/slurmdbd.log")" >&2; exit 1; }
	until sacctmgr -n show cluster >/dev/null 2>&1; do
		[ $SECONDS -lt 60 ] || { echo "$0: slurmdbd does not answer: $(tail -n 3 "$B/log/slurmdbd.log")" >&2; exit 1; }
		sleep 0.2
	done
	{ sacctmgr -i add cluster cudalab && sacctmgr -i add account course &&
	  sacctmgr -i add user root account=course; } >"$B/log/sacctmgr.log" 2>&1 ||
		{ echo "$0: sacctmgr could not set up the cluster: $(tail -n 3 "$B/log/sacctmgr.log")" >&2; exit 1; }
fi
"$ctld" || { echo "$0: slurmctld did not start: $(tail -n 5 "$B/log/slurmctld.log")" >&2; exit 1; }
"$slurmd" -N localhost || { echo "$0: slurmd did not start: $(tail -n 5 "$B/log/slurmd.log")" >&2; exit 1; }
for _ in $(seq 300); do
	[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && exit 0
	sleep 0.1
done
echo "$0: the node did not become idle: $(sinfo -h -o '%T %E' 2>&1); $(tail -n 5 "$B/log/slurmd.log")" >&2
exit 1
