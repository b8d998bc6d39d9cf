"""Persistence of games (architecture §3): the engine's canonical state in ``Game``, an append-only
``ActionRecord`` log, ``Snapshot`` caches and ``Prompt`` rows projected from ``engine.pending()``.
All writes go through :mod:`games.services`."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

#: Time-control presets: id -> (label, turn seconds, response-window seconds). Used from issue 4 on.
TIME_CONTROLS: dict[str, tuple[str, int, int]] = {
    "live": ("Live-ish: 1 hour per turn, 10-minute responses", 3600, 600),
    "daily": ("Daily: 24 hours per turn, 4-hour responses", 86_400, 14_400),
    "relaxed": ("Relaxed: 72 hours per turn, 12-hour responses", 259_200, 43_200),
}


def _invite_token() -> str:
    return secrets.token_urlsafe(12)


class Game(models.Model):
    """A table: lobby settings, then the running game's canonical state (``state``), its ``seq`` (number of
    recorded actions) and ``state_hash``."""

    class Status(models.TextChoices):
        """Where a table is: open for players, being played, or over."""

        LOBBY = "lobby", _("Open lobby")
        ACTIVE = "active", _("In progress")
        FINISHED = "finished", _("Finished")

    title = models.CharField(_("title"), max_length=80)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    players = models.PositiveSmallIntegerField(_("players"))
    options = models.JSONField(default=dict)
    content = models.CharField(max_length=20, default="default")
    time_control = models.CharField(max_length=20, default="daily")
    turn_seconds = models.PositiveIntegerField(default=86_400)
    response_seconds = models.PositiveIntegerField(default=14_400)
    private = models.BooleanField(_("private"), default=False)
    #: Imported from a game record (docs/game-record.md): a replay only, never rated.
    imported = models.BooleanField(default=False)
    #: A guided first game (issue 15): a real game against a bot, unrated, no emails, not in the archive.
    tutorial = models.BooleanField(default=False)
    #: Never rated, whoever sits at it (issue 34: the games of an event the organiser made unrated).
    unrated = models.BooleanField(default=False)
    allow_vacation = models.BooleanField(_("allow vacations (away players' clocks pause)"), default=True)
    #: Start by itself when the last seat is taken (issue 16; the new-game form offers it, on by default).
    auto_start = models.BooleanField(_("start when full"), default=False)
    #: Issue 19: spectators may read the table chat while the game runs (they always may once it ended).
    chat_spectators = models.BooleanField(_("spectators may read the table chat"), default=False)
    #: Invitations sent by email from the lobby (issue 16), capped by ``lobby.MAX_INVITATIONS``.
    invitations_sent = models.PositiveSmallIntegerField(default=0)
    #: Who those invitations went to (issue 29), oldest first, for the lobby's seat list: ``{"user": the
    #: invited player's id, "name": their display name}`` for an invitation by display name, ``{"address":
    #: the address as typed}`` for one by email address (never matched to an account, so the list tells
    #: nobody who is a member). Only the creator is shown the addresses.
    invited = models.JSONField(default=list, blank=True)
    invite_token = models.CharField(max_length=32, unique=True, default=_invite_token)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY, db_index=True)
    setup = models.JSONField(null=True, blank=True)
    state: Any = models.JSONField(null=True, blank=True)
    seq = models.PositiveIntegerField(default=0)
    state_hash = models.CharField(max_length=64, blank=True)
    winners = models.JSONField(default=list)
    #: The current turn's prompt key and, while a window, battle or choice interrupts that turn, the
    #: seconds its clock had left (the turn clock pauses and resumes; it never restarts).
    turn_key = models.CharField(max_length=80, blank=True)
    turn_remaining = models.FloatField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-updated_at",)

    def __str__(self) -> str:
        return f"{self.title} (#{self.pk})"


#: Bot levels a table may choose (issue 17), with their names in the reader's language.
BOT_LEVEL_NAMES: dict[str, Any] = {
    "easy": _("easy"),
    "normal": _("normal"),
    "hard": _("hard"),
}


class Seat(models.Model):
    """A seat at a table: a user or a bot. ``number`` is the join order in the lobby and the engine seat
    (0..n-1, clockwise) once the game has started."""

    # db_index=False: the unique (game, …) constraint below indexes game first
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    is_bot = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)
    missed_deadlines = models.PositiveSmallIntegerField(default=0)
    final_rank = models.PositiveSmallIntegerField(null=True, blank=True)
    final_vp = models.PositiveSmallIntegerField(null=True, blank=True)
    #: The name of a seat in an imported game record (no user), or a bot's ("Bot 1").
    guest_name = models.CharField(max_length=40, blank=True)
    #: A bot's level (issue 17): ``easy``, ``normal`` or ``hard`` (``random`` only for tests and
    #: benchmarks); empty for people and for bots seated before levels existed (they play ``normal``).
    bot_level = models.CharField(max_length=8, blank=True, default="")
    #: Issue 19: this player agrees that the game's chat goes into its exported record (it does only when
    #: every seated person agrees).
    chat_in_export = models.BooleanField(default=False)
    #: Issue 30: when this player resigned (by the page or a ``resign`` reply). A stand-in bot plays the seat
    #: on for good (``missed_deadlines`` is set to ``ABSENT_AFTER_MISSES`` too, so every absence rule holds),
    #: the player may no longer act or come back, and the ratings place them last.
    resigned_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("number",)
        constraints = [
            models.UniqueConstraint(fields=("game", "number"), name="seat_unique_number"),
            models.UniqueConstraint(
                fields=("game", "user"), condition=models.Q(user__isnull=False), name="seat_unique_user"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} of game {self.game_id}"

    @property
    def name(self) -> str:
        """Public name: the user's display name, or "Bot N" with its level ("Bot 1 (hard)", issue 17)."""
        if self.user is not None:
            return str(self.user)
        name = self.guest_name or f"Bot {self.number + 1}"
        if self.is_bot:
            return f"{name} ({BOT_LEVEL_NAMES.get(self.level, self.level)})"
        return name

    @property
    def level(self) -> str:
        """The level this seat's bot plays at (``normal`` for bots seated before levels existed)."""
        return self.bot_level or "normal"


class ActionRecord(models.Model):
    """One applied action, append-only: ``seq`` is unique per game and increasing (1, 2, …; an undo uses up
    one number without a record of its own, issue 16); ``seat`` is ``None`` for system actions; ``events``
    are the engine's unredacted events (redacted per viewer when shown)."""

    class Source(models.TextChoices):
        """The door an action came through: page, email, API, timeout, bot, standing order or server."""

        WEB = "web"
        EMAIL = "email"
        API = "api"
        TIMEOUT = "timeout"
        BOT = "bot"
        STANDING = "standing"
        #: the server passed for a seat with nothing to decide in a response window (issue 14)
        SERVER = "server"

    # db_index=False: the unique (game, …) constraint below indexes game first
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions", db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    source = models.CharField(max_length=10, choices=Source.choices)
    payload = models.JSONField()
    events = models.JSONField(default=list)
    state_hash = models.CharField(max_length=64)
    #: Whether the acting player may take this step back (issue 16): a step of their own turn that brought
    #: no new information (``engine.undo_barrier`` is ``None``). Records stored before undo existed: no.
    takeback = models.BooleanField(default=False)
    #: Otherwise why not (an ``engine.Barrier`` value: the new information it brought; empty if unknown).
    barrier = models.CharField(max_length=20, blank=True, default="")
    #: The game ``seq`` of the undo that took this step back (issue 16); ``None`` while it counts. An undone
    #: record is kept but left out of the state, replays, the log and exports.
    undone_in = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "seq")
        constraints = [models.UniqueConstraint(fields=("game", "seq"), name="action_unique_seq")]

    def __str__(self) -> str:
        return f"game {self.game_id} #{self.seq}"


class Snapshot(models.Model):
    """A cached canonical state after action ``seq`` (every ``SNAPSHOT_EVERY`` actions)."""

    # db_index=False: the unique (game, …) constraint below indexes game first
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False)
    seq = models.PositiveIntegerField()
    state = models.JSONField()
    state_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("game", "seq"), name="snapshot_unique_seq")]


class Prompt(models.Model):
    """A decision the game waits for, projected from ``engine.pending()`` after every write: used by
    "My games", the deadline sweep and notifications. ``key`` is the engine's stable prompt key."""

    # db_index=False: the unique (game, …) constraint below indexes game first
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="prompts", db_index=False)
    seat = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=20)
    key = models.CharField(max_length=80)
    deadline_class = models.CharField(max_length=10)
    timeout_action = models.JSONField()
    opened_at = models.DateTimeField()
    deadline_at = models.DateTimeField(db_index=True)
    #: When the 75 % reminder is due; cleared once the reminder has been queued.
    remind_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: For a prompt the seat has nothing to decide in (``engine.Prompt.auto``: a response window with no
    #: Fracture to play): when the server answers its timeout action (opening + the masking delay). It is
    #: never shown to its seat nor emailed; to everyone else it looks like any other prompt (issue 14).
    auto_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("game", "seat", "key"), name="prompt_unique_key")]

    def __str__(self) -> str:
        return f"game {self.game_id} seat {self.seat} {self.kind}"


class Notification(models.Model):
    """The email outbox (architecture §3): one row per recipient, game, prompt and kind (``dedupe_key`` is
    unique, so queuing twice stores one row). Rows are written in the transaction of the game write that
    caused them and sent after commit by :func:`games.tasks.notifications_send`; ``status`` moves from
    ``pending`` to ``sent`` exactly once (or to ``digest``, ``skipped``)."""

    class Kind(models.TextChoices):
        """What an email is about: a decision (an engine prompt kind), a game, lobby or chat event, or the
        account itself."""

        TURN = "turn", _("It is your turn")
        CONFLICT = "conflict", _("Battle: choose your conflict card")
        SUPPORT = "support", _("Your move in the support step")
        RESPONSE = "response", _("A response window is open")
        CHOICE = "choice", _("A choice is yours")
        REMINDER = "reminder", _("Reminder: a deadline is near")
        TIMEOUT = "timeout", _("A deadline passed")
        STARTED = "started", _("Game started")
        FINISHED = "finished", _("Game over")
        JOINED = "joined", _("Someone joined your table")
        FULL = "full", _("Your table is full")
        DIGEST = "digest", _("Daily digest")
        REPLY = "reply", _("The result of your emailed moves")
        CHAT = "chat", _("Table talk")
        MESSAGE = "message", _("A private message or a mention of you")
        #: An account email of allauth's (address confirmation, "account already exists", password reset),
        #: rendered in the request and stored as sent (issue 28); never held back and never turned off.
        ACCOUNT = "account", _("Account email")

    class Status(models.TextChoices):
        """Where an outbox row is: due, being sent, sent, or held for the daily digest."""

        PENDING = "pending", _("waiting to be sent")
        #: Claimed and stored with its message before the SMTP call (issue 28, games.notify.send).
        SENDING = "sending", _("being sent")
        SENT = "sent", _("sent")
        DIGEST = "digest", _("waiting for the daily digest")
        SKIPPED = "skipped", _("not sent")

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    prompt_key = models.CharField(max_length=80, blank=True)
    # Unique through Meta.constraints: unique=True would add a LIKE index on PostgreSQL, never used here.
    dedupe_key = models.CharField(max_length=200)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField()
    send_after = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=40, blank=True)
    #: Failed tries to build or send it (each postpones it; after ``SEND_ATTEMPTS`` it is skipped).
    attempts = models.PositiveSmallIntegerField(default=0)
    digest = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="items")
    link_used_at = models.DateTimeField(null=True, blank=True)
    #: The ``Message-ID`` the email was (or is being) sent with: a copy sent again keeps it (issue 28).
    message_id = models.CharField(max_length=200, blank=True)
    #: When a sender claimed the row (status ``sending``); after ``OUTBOX_SENDING_LEASE`` seconds another
    #: flush takes it over.
    claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=("status", "send_after"), name="notification_due")]
        constraints = [models.UniqueConstraint(fields=("dedupe_key",), name="notification_unique_dedupe_key")]

    def __str__(self) -> str:
        return self.dedupe_key


class StandingOrder(models.Model):
    """A player's standing order for response windows (architecture "Response windows"), for one game or
    (``game`` empty) for all of them; the server turns it into an ordinary logged answer (source
    ``standing``).

    ``rule``: ``pass`` (always pass), ``pass_unless`` (pass unless ``artefact`` is used against me),
    ``fracture`` (fracture ``artefact`` whenever it would apply against me)."""

    class Rule(models.TextChoices):
        """How a standing order answers a Fracture window (issue 14)."""

        PASS = "pass", _("Always pass")
        PASS_UNLESS = "pass_unless", _("Pass unless this artefact is used against me")
        FRACTURE = "fracture", _("Fracture this artefact whenever it would apply against me")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="standing_orders"
    )
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    rule = models.CharField(max_length=12, choices=Rule.choices)
    artefact = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("created_at", "pk")

    def __str__(self) -> str:
        return f"{self.rule} {self.artefact}".strip()


class PendingOrder(models.Model):
    """A line of a player's emailed reply (or of the orders page's "rest of my turn") that could not be played
    yet (issue 30, whole turns in one reply): kept for their seat and played, in ``position`` order, as soon
    as the seat's next decision accepts it (:mod:`games.services.pending`; recorded with its ``source``).
    Seen only by its seat's player.

    ``text``: the move in the notation, as written (a number of the email's list already read as its move).
    ``turn_key``: the seat's turn it was written in (``t<turn>:turn:<seat>``); once that turn is over the
    order is dropped. ``battle``: ``""`` for a turn's line; for a conflict, support or pass line the battle
    it is for: ``next`` (the battle the seat's advance before it opens) or the battle's key
    (``<turn>:<attacker>:<defender>:<pos>``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pending_orders"
    )
    position = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=200)
    turn_key = models.CharField(max_length=40)
    battle = models.CharField(max_length=40, blank=True)
    mail = models.ForeignKey(
        "InboundMail", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: The door the order came through (an :class:`ActionRecord.Source`): ``email`` for a reply's lines,
    #: ``web`` for the orders page's form; its move is recorded with it when played.
    source = models.CharField(max_length=10, default="email")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "seat", "position", "pk")
        indexes = [models.Index(fields=["game", "seat"], name="pendingorder_game_seat")]

    def __str__(self) -> str:
        return self.text


#: Rating pools: every rated game counts in "all" and in the pool of its player count ("2" … "6").
RATING_POOLS = ("all", "2", "3", "4", "5", "6")


class Rating(models.Model):
    """A player's current OpenSkill (Plackett–Luce) rating in one pool (issue 5): ``mu`` and ``sigma`` in
    OpenSkill's units (a new player has 25 and 25/3); shown as the conservative ``mu - 3 sigma``,
    "provisional" until ``PROVISIONAL_GAMES`` rated games."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )  # indexed by the unique (user, pool) constraint
    pool = models.CharField(max_length=4, default="all")
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField(db_index=True)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("user", "pool"), name="rating_unique_pool")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.pool}: {self.conservative:.1f}"

    @property
    def provisional(self) -> bool:
        """Fewer than ``PROVISIONAL_GAMES`` rated games in this pool."""
        return self.games < settings.PROVISIONAL_GAMES


class RatingChange(models.Model):
    """One rated game's effect on one player's rating in one pool (the rating history). Unique per game,
    user and pool, so a game is rated exactly once."""

    # db_index=False: the unique (game, …) constraint below indexes game first
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    pool = models.CharField(max_length=4)
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ("created_at", "pk")
        constraints = [models.UniqueConstraint(fields=("game", "user", "pool"), name="rating_change_unique")]

    def __str__(self) -> str:
        return f"game {self.game_id} user {self.user_id} {self.pool}"

    @property
    def conservative_after(self) -> float:
        """``mu - 3 sigma`` after the game."""
        return self.mu_after - 3 * self.sigma_after


class InboundMail(models.Model):
    """A mail received for play by email (issue 18): stored by the receiver (LMTP/SMTP, a provider webhook
    or ``manage.py mail_reply``) in the receiving transaction, then processed once by the
    :func:`games.tasks.inbound_process` task, so a crash loses no mail. ``message_id`` is unique: the same
    mail delivered twice is stored (and acts) once.

    ``status`` moves from ``pending`` to ``applied`` (every line applied), ``stopped`` (a line failed after
    the lines before it were applied), ``refused`` (nothing applied; ``reason`` says why) or ``ignored``
    (auto-replies and bounces: no answer, so no mail loop). ``raw`` is the message as received (empty when
    it was over ``INBOUND_MAX_BYTES``)."""

    class Status(models.TextChoices):
        """Where an emailed reply is: waiting, applied, or stopped at its first failing line (issue 18)."""

        PENDING = "pending", _("waiting to be processed")
        APPLIED = "applied", _("applied")
        STOPPED = "stopped", _("stopped at a failing line")
        REFUSED = "refused", _("refused")
        IGNORED = "ignored", _("ignored (automatic mail)")

    message_id = models.CharField(max_length=250)
    received_at = models.DateTimeField()
    recipient = models.CharField(max_length=254, blank=True)
    sender = models.CharField(max_length=254, blank=True)
    size = models.PositiveIntegerField(default=0)
    raw = models.BinaryField(default=b"")
    via = models.CharField(max_length=12, default="smtp")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=40, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    lines = models.JSONField(default=list)
    applied = models.PositiveSmallIntegerField(default=0)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("message_id",), name="inboundmail_unique_message_id")]
        indexes = [models.Index(fields=("status", "received_at"), name="inboundmail_due")]

    def __str__(self) -> str:
        return self.message_id


class ChatMessage(models.Model):
    """One chat message of a game (issue 19): plain text up to 2,000 characters, posted by a seated person
    to the table, privately to one other seat (``to_seat``) or to their Allegiance ``team``. ``game_seq`` is
    the game's ``seq`` when it was posted (the log and replays interleave by it). Staff may hide a message:
    it is kept, and shown to nobody but staff."""

    class Channel(models.TextChoices):
        """Who reads a chat message: the whole table, one player, or an Allegiance team (issue 19)."""

        TABLE = "table", _("Table")
        PRIVATE = "private", _("Private")
        TEAM = "team", _("Team")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat", db_index=False)
    # db_index=False: the (author, created_at) index below leads with it
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    author_seat = models.PositiveSmallIntegerField()
    channel = models.CharField(max_length=8, choices=Channel.choices)
    to_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    team = models.SmallIntegerField(null=True, blank=True)
    text = models.TextField(max_length=2000)
    created_at = models.DateTimeField()
    game_seq = models.PositiveIntegerField(default=0)
    hidden = models.BooleanField(default=False)
    hidden_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=("game", "channel", "id"), name="chat_game_channel"),
            models.Index(fields=("author", "created_at"), name="chat_author_time"),
        ]

    def __str__(self) -> str:
        return f"chat {self.pk} in game {self.game_id}"


class ChatMute(models.Model):
    """``user`` does not see ``muted``'s chat messages anywhere (issue 19); the muted player is not told."""

    # db_index=False: the unique (user, muted) constraint leads with it
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=("user", "muted"), name="chatmute_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"


class ChatReport(models.Model):
    """A player's report of a chat message they could read, for staff in the Django admin (issue 19)."""

    # db_index=False: the unique (message, reporter) constraint leads with it
    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports", db_index=False)
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField()
    resolved = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("message", "reporter"), name="chatreport_unique")]

    def __str__(self) -> str:
        return f"report of chat {self.message_id}"


class ChatRead(models.Model):
    """How far ``user`` has read one channel of a game (the id of the newest message seen): unread counts."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    channel = models.CharField(max_length=8)
    last_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("game", "user", "channel"), name="chatread_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.channel} of {self.game_id} to {self.last_id}"


def _webhook_secret() -> str:
    """A new webhook's HMAC key: 32 random bytes, hex."""
    return secrets.token_hex(32)


class PushDelivery(models.Model):
    """One Web Push of an outbox row to one of its recipient's devices (issue 32): made when the row is
    sent, so the push has the email's quiet hours, digests, per-kind settings and dedupe; retried with
    ``attempts`` and ``next_try_at`` like the email."""

    class Status(models.TextChoices):
        """Where a push is: due, delivered to the push service, or given up."""

        PENDING = "pending", _("waiting to be sent")
        SENT = "sent", _("sent")
        FAILED = "failed", _("not sent")

    # db_index=False: the unique (notification, subscription) constraint leads with it
    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="pushes", db_index=False
    )
    subscription = models.ForeignKey("accounts.PushSubscription", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_try_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=("status", "next_try_at"), name="pushdelivery_due")]
        constraints = [
            models.UniqueConstraint(fields=("notification", "subscription"), name="pushdelivery_unique")
        ]

    def __str__(self) -> str:
        return f"push {self.notification_id} to {self.subscription_id}"


class GameWebhook(models.Model):
    """A table's webhook (issue 32), set by the game's creator: Discord, Slack or a generic JSON post signed
    with HMAC-SHA256 (``secret``). It gets "It is Alice's turn in …" and the result; ``failures`` counts
    failed posts in a row (any of its deliveries; a success resets it), and at 8 the hook is paused
    (``paused_at``) and its creator told (games/notify/webhooks.py)."""

    class Kind(models.TextChoices):
        """The receiver's format."""

        DISCORD = "discord", _("Discord")
        SLACK = "slack", _("Slack")
        JSON = "json", _("Signed JSON")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="webhooks")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64, default=_webhook_secret)
    failures = models.PositiveSmallIntegerField(default=0)
    paused_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.kind} hook of game {self.game_id}"


class WebhookDelivery(models.Model):
    """One message to a :class:`GameWebhook` (issue 32): written in the transaction of the game write that
    caused it (``dedupe_key`` unique: one post per turn or result), posted after commit, retried with
    backoff (``attempts``, ``next_try_at``); ``body`` is the JSON posted."""

    class Status(models.TextChoices):
        """Where a delivery is: due, delivered, or given up."""

        PENDING = "pending", _("waiting to be sent")
        SENT = "sent", _("sent")
        FAILED = "failed", _("not sent")

    hook = models.ForeignKey(GameWebhook, on_delete=models.CASCADE, related_name="deliveries")
    dedupe_key = models.CharField(max_length=200)
    body = models.JSONField(default=dict)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField()
    next_try_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=("status", "next_try_at"), name="webhookdelivery_due")]
        constraints = [models.UniqueConstraint(fields=("dedupe_key",), name="webhookdelivery_unique")]

    def __str__(self) -> str:
        return self.dedupe_key
