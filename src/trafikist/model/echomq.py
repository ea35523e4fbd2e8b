"""EchoMQ as the seed describes it: what each library call sends on a `wire: 4` or `wire: 6`
connection, and the scripts a `wire: 4` connection evaluates (modelled as atomic functions).

On `wire: 4` every sweep is a script. On `wire: 6`, `EchoMQ.Jobs.promote/3` sends EMQ.PROMOTE and
`EchoMQ.Stalled.check/3` sends EMQ.STALLED.CHECK; `EchoMQ.Jobs.reap/2` and the lane claim have
no verb and are refused by the library, before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from trafikist.model import choices
from trafikist.model.command import Keyspace
from trafikist.model.replies import Reply
from trafikist.model.server import Server
from trafikist.model.trafikey import move_due, sweep_stalled
from trafikist.model.values import HashValue, ListValue, ZSet, parse_int


@dataclass(frozen=True)
class Call:
    """One library call: the command it sends, or why the library refuses it."""

    via: str
    argv: tuple[str, ...] | None
    refusal: str | None = None


@dataclass(frozen=True)
class QueueKeys:
    queue: str

    def key(self, template: str) -> str:
        return template.format(queue=self.queue)

    @property
    def schedule(self) -> str:
        return self.key(choices.SCHEDULE_KEY)

    @property
    def pending(self) -> str:
        return self.key(choices.PENDING_KEY)

    @property
    def active(self) -> str:
        return self.key(choices.ACTIVE_KEY)

    @property
    def dead(self) -> str:
        return self.key(choices.DEAD_KEY)

    @property
    def wake(self) -> str:
        return self.key(choices.WAKE_KEY)

    @property
    def job_prefix(self) -> str:
        return self.key(choices.JOB_KEY_PREFIX)


class Library:
    """The calls one EchoMQ connection makes, for its wire."""

    def __init__(self, keys: QueueKeys, wire: int):
        self.keys = keys
        self.wire = wire

    def promote(self, batch: int) -> Call:
        keys = (self.keys.schedule, self.keys.pending, self.keys.wake)
        if self.wire == 6:
            return Call("Jobs.promote/3", ("EMQ.PROMOTE", "3", *keys, str(batch)))
        return Call("Jobs.promote/3", ("EVALSHA", "@promote", "3", *keys, str(batch)))

    def stalled_check(self, limit: int, max_attempts: int) -> Call:
        keys = (self.keys.active, self.keys.pending, self.keys.dead)
        args = (str(limit), str(max_attempts), self.keys.job_prefix)
        if self.wire == 6:
            return Call("Stalled.check/3", ("EMQ.STALLED.CHECK", "3", *keys, *args))
        return Call("Stalled.check/3", ("EVALSHA", "@sweep_stalled", "3", *keys, *args))

    def reap(self) -> Call:
        if self.wire == 6:
            return Call("Jobs.reap/2", None, "EchoMQ.Jobs.reap/2 has no verb on wire: 6")
        keys = (self.keys.active, self.keys.pending)
        return Call("Jobs.reap/2", ("EVALSHA", "@reap", "2", *keys, str(choices.STALLED_LIMIT)))

    def claim(self, lease_ms: int) -> Call:
        if self.wire == 6:
            return Call("lane claim", None, "the lane claim has no verb on wire: 6")
        keys = (self.keys.pending, self.keys.active)
        return Call(
            "lane claim", ("EVALSHA", "@claim", "2", *keys, str(lease_ms), self.keys.job_prefix)
        )

    def ack(self, member: str) -> Call:
        # model's own choice: a finished job leaves active with ZREM (choice "claim").
        return Call("ack", ("ZREM", self.keys.active, member))

    def park(self, timeout_seconds: float) -> Call:
        return Call("park", ("BLPOP", self.keys.wake, _seconds(timeout_seconds)))


def _seconds(value: float) -> str:
    return f"{value:g}"


# --- the scripts a wire: 4 connection evaluates --------------------------------------------


def script_promote(server: Keyspace, keys: list[bytes], args: list[bytes]) -> Reply:
    """@promote: due members, flat and lane rows alike, to pending; at most batch."""
    batch = parse_int(args[0])
    return move_due(server, keys[:3], server.now_ms, batch, lanes_allowed=True, verb="@promote")


def script_sweep_stalled(server: Keyspace, keys: list[bytes], args: list[bytes]) -> Reply:
    """@sweep_stalled: the same counted sweep as EMQ.STALLED.CHECK."""
    limit, max_attempts = parse_int(args[0]), parse_int(args[1])
    return sweep_stalled(server, keys[:3], server.now_ms, limit, max_attempts, args[2])


def script_reap(server: Keyspace, keys: list[bytes], args: list[bytes]) -> Reply:
    """@reap: every expired lease back to pending, no count, restarts included (model's own)."""
    active_key, pending_key = keys[:2]
    limit = parse_int(args[0])
    active = server.lookup(active_key, ZSet)
    if active is None:
        return 0
    _, end = active.score_range(float("-inf"), False, server.now_ms, False)
    expired = [member for _, member in active.items[: min(end, limit)]]
    if not expired:
        return 0
    server.dirty.add(active_key)
    for member in expired:
        active.remove(member)
    server.drop_if_empty(active_key, active)
    server.lookup_write(pending_key, ListValue).extend(expired)
    server.signal_ready(pending_key)
    return len(expired)


def script_claim(server: Keyspace, keys: list[bytes], args: list[bytes]) -> Reply:
    """@claim: the head of pending into active, leased until now + lease."""
    pending_key, active_key = keys[:2]
    pending = server.lookup(pending_key, ListValue)
    if not pending:
        return None
    server.dirty.add(pending_key)
    member: bytes = pending.popleft()
    server.drop_if_empty(pending_key, pending)
    server.lookup_write(active_key, ZSet).add(member, server.now_ms + parse_int(args[0]))
    job = server.lookup(args[1] + member, HashValue)
    if job is not None and job.pop(b"restart", None) is not None:
        server.dirty.add(args[1] + member)
    return member


SCRIPTS = {
    "@promote": script_promote,
    "@sweep_stalled": script_sweep_stalled,
    "@reap": script_reap,
    "@claim": script_claim,
}


def load_scripts(server: Server) -> None:
    for name, function in SCRIPTS.items():
        server.add_script(name, function)
