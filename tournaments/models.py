"""Tournaments (issue 34): an ``Event`` with its ``Entry`` rows (and, in an Allegiance event, its ``Team``
rows), ``Round`` rows and, per round, the ``Table`` rows (one Medieval Mastery game each) with their
``TableSeat`` rows, and the ``RoundBye`` rows of players who sat a round out. Every write goes through
:mod:`tournaments.services`.

A round is created once: ``(event, number)`` is unique and a player has at most one seat per round
(``TableSeat`` carries its round for that constraint), so a worker killed half-way (its transaction rolls
back) or two workers at once can never seat anyone twice.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from games.models import Game


class Event(models.Model):
    """A tournament: its format and rules (announced before the start), its sign-up window and its clock."""

    class Format(models.TextChoices):
        """How players are seated round after round."""

        ROUND_ROBIN = "round_robin", _("Round robin")
        SWISS = "swiss", _("Swiss")
        ELIMINATION = "elimination", _("Single elimination")

    class ByePolicy(models.TextChoices):
        """What fills the seats when the players do not divide into full tables."""

        BOT = "bot", _("Bots (normal level) fill the empty seats")
        BYE = "bye", _("Players left over sit the round out with the bye points")

    class Status(models.TextChoices):
        """Where an event is: announced, open for sign-up, being played, over (or called off)."""

        DRAFT = "draft", _("Announced")
        OPEN = "open", _("Sign-up")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(_("name"), max_length=80)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_events"
    )
    format = models.CharField(_("format"), max_length=12, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField(
        _("players per table"), validators=[MinValueValidator(2), MaxValueValidator(6)]
    )
    #: Swiss: how many rounds. Round robin: the schedule's length (set at the start). Elimination: unused.
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=3)
    #: Elimination: how many of each table advance.
    advance_k = models.PositiveSmallIntegerField(_("players advancing from each table"), default=1)
    #: The engine's optional rules, as ``games.services.game_create`` takes them.
    options = models.JSONField(default=dict, blank=True)
    #: A key of ``games.models.TIME_CONTROLS``, or ``"custom"`` with the two second counts below.
    time_control = models.CharField(_("time control"), max_length=20, default="daily")
    #: A custom time control's seconds per turn and per response (empty for a preset), given to each game.
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    response_seconds = models.PositiveIntegerField(null=True, blank=True)
    rated = models.BooleanField(_("rated"), default=False)
    bye_policy = models.CharField(_("byes"), max_length=3, choices=ByePolicy.choices, default=ByePolicy.BOT)
    bye_points = models.PositiveSmallIntegerField(_("points for a bye"), default=0)
    #: Points per table place: ``{"1": 3, "2": 2, "3": 1, "4": 0}``; a place not listed scores 0.
    points_by_rank = models.JSONField(default=dict)
    signup_opens = models.DateTimeField(_("sign-up opens"))
    signup_closes = models.DateTimeField(_("sign-up closes"))
    starts_at = models.DateTimeField(_("starts"))
    round_deadline_days = models.PositiveSmallIntegerField(_("days per round"), default=14)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True)
    #: Round robin: the whole schedule, fixed at the start (``schedule[r][t]``: user ids as text).
    schedule = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-starts_at", "-pk")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(table_size__gte=2, table_size__lte=6), name="event_table_size_2_6"
            ),
            models.CheckConstraint(
                condition=models.Q(signup_opens__lte=models.F("signup_closes"))
                & models.Q(signup_closes__lte=models.F("starts_at")),
                name="event_dates_in_order",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Team(models.Model):
    """A team of an Allegiance event (R105–R111): two or three players, named by the player who started
    it, the name unique in the event whatever its case. A team that is not full at the start is completed
    by bots; one that loses its last member before the start is deleted."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(_("team name"), max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("pk",)
        constraints = [models.UniqueConstraint(Lower("name"), "event", name="team_unique_name")]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    """A player's entry in an event; a withdrawn entry keeps its results but is seated no more. In an
    Allegiance event ``team`` is the player's team (empty once they withdraw before the start)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="event_entries")
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="members")
    withdrawn = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("pk",)
        constraints = [models.UniqueConstraint(fields=("event", "user"), name="entry_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.event}"


class Round(models.Model):
    """One round of an event; created once (``(event, number)`` is unique) with all its tables."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField()
    #: When the round's games should be over. Shown to players; the next round still waits until every
    #: game has ended (a late game is decided by the games' own timeouts, never by hand).
    deadline = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("number",)
        constraints = [models.UniqueConstraint(fields=("event", "number"), name="round_unique_number")]

    def __str__(self) -> str:
        return f"{self.event} round {self.number}"


class Table(models.Model):
    """One table of a round: exactly one game."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="event_table")
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ("number",)
        constraints = [models.UniqueConstraint(fields=("round", "number"), name="table_unique_number")]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class TableSeat(models.Model):
    """A seat at a table: an entry, or a bot (``entry`` empty). ``seat`` is the order the seating gave
    (standing or seed order); the game draws its own seat order at the start. In an Allegiance event
    ``seat`` is the game's own seat number (the engine's, fixed so that teammates sit on the seats
    R106/R107 give a team) and ``team`` the team the seat plays for: a member, or a bot completing the
    team; both empty for a seat of a bot team."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    entry = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="seats")
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.PROTECT, related_name="seats")
    seat = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ("table", "seat")
        constraints = [
            models.UniqueConstraint(fields=("table", "seat"), name="tableseat_unique_seat"),
            models.UniqueConstraint(
                fields=("round", "entry"),
                condition=models.Q(entry__isnull=False),
                name="tableseat_once_a_round",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.seat}"


class RoundBye(models.Model):
    """A player who sits a round out (bye policy ``bye``) and scores the event's bye points."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="byes")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="byes")
    points = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("round", "entry"), name="roundbye_once_a_round")]

    def __str__(self) -> str:
        return f"{self.entry} bye in {self.round}"
