"""Branding at the TV table (rule book: "Branded Logos", "Branded Logos during all filming").

Checked before the start and at every seating: a player in breach cannot sit at a
televised table until it is fixed ("will not be able to participate in a televised table
until said article of clothing and/or item is replaced and/or removed"). The rules:

* at any Event: one breast-pocket logo of at most 70 cm², one upper-sleeve logo of at
  most 40 cm², no other branding; only approved gaming operators, declared to the
  organiser before the Event (later: written proof of sponsorship); no operator that
  local law forbids to advertise; no unauthorised satellite operator;
* under filming: breast pocket and sleeve each at most 4 cm × 5 cm; caps and card
  protectors only with the logo not visible; no other brands (sports, fashion...);
* company limits: at most 2 players at the TV table and at most 10% of the field per
  company, the organiser exempt; the players (or a representative) decide who keeps it,
  otherwise a high-card draw does (the draw is made outside and passed in);
* "Any player starting the final table wearing no logos must remain as such";
* on air, a sponsor badge shows only when the player's branding is compliant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from broadcast.engine.cards import RANKS
from broadcast.engine.errors import BadCommand, IllegalAction

from .commands import DecideLogoKeepers, DeclareSponsor, HighCardDraw, InspectLogos, StartEvent, StartFinalTable
from .config import ComplianceConfig
from .errors import Blocker, need_role
from .events import EventStarted, FinalTableStarted, Logo, LogoKeepersDecided, LogosInspected, SponsorDeclared
from .facts import TableFacts
from .field import FieldData

SCOPES = ("tv_table", "field")
SUIT_ORDER = "cdhs"  # high card ties: spades, hearts, diamonds, clubs

ANY_EVENT = "Branded Logos"
FILMING = "Branded Logos during all filming"
PLACE_NAMES = {"breast_pocket": "breast pocket", "sleeve": "upper sleeve", "cap": "cap",
               "card_protector": "card protector", "other": "clothing"}


@dataclass(frozen=True)
class Breach:
    rule: str  # the rule book's section
    message: str  # what is wrong and how to fix it, for the rep and the player

    def to_dict(self) -> dict:
        return {"rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class BrandingState:
    inspections: tuple[LogosInspected, ...] = ()  # the latest per player
    sponsors: tuple[SponsorDeclared, ...] = ()
    event_started: bool = False
    final_table_bare: frozenset[str] | None = None  # None until the final table starts
    keepers: tuple[LogoKeepersDecided, ...] = ()  # the latest per (company, scope)

    def inspection(self, player: str) -> LogosInspected | None:
        return next((i for i in self.inspections if i.player == player), None)

    def visible(self, player: str) -> tuple[Logo, ...]:
        i = self.inspection(player)
        return tuple(lg for lg in i.logos if lg.visible) if i else ()

    def declared(self, player: str, company: str) -> bool:
        return any(s.player == player and same(s.company, company) for s in self.sponsors)

    def keep(self, company: str, scope: str) -> tuple[str, ...] | None:
        d = next((k for k in self.keepers if same(k.company, company) and k.scope == scope), None)
        return d.keep if d else None


def same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _in(company: str, names: tuple[str, ...]) -> bool:
    return any(same(company, n) for n in names)


def fits_4_by_5(logo: Logo) -> bool:
    w, h = logo.width_cm, logo.height_cm
    return (w <= 4 and h <= 5) or (w <= 5 and h <= 4)


def _size(logo: Logo) -> str:
    return f"{logo.width_cm:g} × {logo.height_cm:g} cm"


def field_limit(field: FieldData, config: ComplianceConfig) -> int | None:
    """At most 10% of the overall entry field per company (None: entries not entered yet)."""
    return math.floor(field.entries * config.field_company_share + 1e-9) if field.entries else None


def tv_wearers(state: BrandingState, config: ComplianceConfig, company: str, tv_players: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in tv_players if any(same(lg.company, company) for lg in state.visible(p)))


# -- rule: the player's logos ---------------------------------------------------------------
def check_player(state: BrandingState, config: ComplianceConfig, field: FieldData, player: str,
                 tv_players: tuple[str, ...]) -> tuple[Breach, ...]:
    """Every breach of the branding rules for one player at the TV table (empty: compliant)."""
    inspection = state.inspection(player)
    if inspection is None:
        return (Breach(ANY_EVENT, "logos not checked yet: a rep must check clothing and card protector before the player sits"),)
    out: list[Breach] = []
    logos = state.visible(player)
    for place, limit_cm2 in (("breast_pocket", 70), ("sleeve", 40)):
        here = [lg for lg in logos if lg.place == place]
        if len(here) > 1:
            out.append(Breach(ANY_EVENT, f"{len(here)} logos on the {PLACE_NAMES[place]}: one only"))
        for lg in here:
            if lg.area > limit_cm2:
                out.append(Breach(ANY_EVENT, f"{lg.company} logo on the {PLACE_NAMES[place]} is {lg.area:g} cm²: "
                                             f"no larger than {limit_cm2} cm²"))
            if config.filming and not fits_4_by_5(lg):
                out.append(Breach(FILMING, f"{lg.company} logo on the {PLACE_NAMES[place]} is {_size(lg)}: "
                                           "no larger than 4 cm × 5 cm on a filmed table"))
    for lg in logos:
        if lg.place in ("cap", "card_protector"):
            out.append(Breach(FILMING, f"{lg.company} logo on the {PLACE_NAMES[lg.place]} is visible: "
                                       "allowed only if the logo is not visible"))
        elif lg.place == "other":
            out.append(Breach(ANY_EVENT, f"{lg.company} branding elsewhere on clothing or body: "
                                         "no other branding is permitted"))
    for company in dict.fromkeys(lg.company for lg in logos):
        out += _company_rules(state, config, field, player, company, tv_players)
    if state.final_table_bare is not None and player in state.final_table_bare and logos:
        out.append(Breach(ANY_EVENT, "started the final table wearing no logos: must remain so throughout the Event"))
    return tuple(out)


def _company_rules(state: BrandingState, config: ComplianceConfig, field: FieldData, player: str, company: str,
                   tv_players: tuple[str, ...]) -> list[Breach]:
    if same(company, config.organiser):
        return []  # the organiser's own logo: always allowed, exempt from the company limits
    if _in(company, config.forbidden_operators):
        return [Breach(ANY_EVENT, f"{company} is not permitted to advertise under local law: remove it")]
    if _in(company, config.unauthorised_satellites):
        return [Breach(ANY_EVENT, f"{company} is not an authorised satellite operator: remove it")]
    if not _in(company, config.approved_operators):
        rule = FILMING if config.filming else ANY_EVENT
        return [Breach(rule, f"{company} is not an approved gaming operator: no other company names or brands "
                             "(sports and fashion included) at a televised table")]
    out = []
    if not state.declared(player, company):
        out.append(Breach(ANY_EVENT, f"{company} was not declared on the waiver form before the Event: "
                                     "written proof of sponsorship is needed to wear it"))
    wearers = tv_wearers(state, config, company, tv_players)
    keep = state.keep(company, "tv_table")
    if len(wearers) > config.tv_table_company_limit and (keep is None or player not in keep):
        out.append(Breach(ANY_EVENT, f"{len(wearers)} players at the TV table wear {company} "
                                     f"(at most {config.tv_table_company_limit}): " +
                                     ("the players or a rep decide who keeps it, else high card" if keep is None
                                      else "not among those keeping it")))
    limit = field_limit(field, config)
    in_field = field.wearers_of(company)
    keep = state.keep(company, "field")
    if limit is not None and in_field > limit and (keep is None or player not in keep):
        out.append(Breach(ANY_EVENT, f"{in_field} players in the field wear {company} (at most {limit}, 10% of "
                                     f"{field.entries:,} entries): " +
                                     ("the players or the company decide who keeps it, else high card" if keep is None
                                      else "not among those keeping it")))
    return out


def branding_gate(state: BrandingState, config: ComplianceConfig, field: FieldData, player: str, seat: int | None,
                  name: str, tv_players: tuple[str, ...]) -> Blocker | None:
    """Checked before the start and at every seating: in breach, no seat at a televised table."""
    breaches = check_player(state, config, field, player, tv_players)
    if not breaches:
        return None
    who = f"seat {seat} ({name or player})" if seat else (name or player)
    return Blocker(seat, player, "branding", f"{who}: " + "; ".join(b.message for b in breaches))


def sponsor_badge(state: BrandingState, config: ComplianceConfig, field: FieldData, player: str,
                  tv_players: tuple[str, ...]) -> str | None:
    """The sponsor shown on air: the declared sponsor worn, and only when everything complies."""
    if check_player(state, config, field, player, tv_players):
        return None
    worn = [lg.company for lg in state.visible(player) if lg.place == "breast_pocket"] + \
           [lg.company for lg in state.visible(player) if lg.place == "sleeve"]
    return next((c for c in worn if state.declared(player, c) or same(c, config.organiser)), None)


# -- rule: sponsors declared before the start -----------------------------------------------
def declare_sponsor(state: BrandingState, config: ComplianceConfig, cmd: DeclareSponsor) -> SponsorDeclared:
    need_role(cmd.role, ("rep", "td"), "record a sponsor")
    if _in(cmd.company, config.forbidden_operators):
        raise IllegalAction(f"{cmd.company} is not permitted to advertise under local law", field="company")
    if state.event_started and (cmd.on_waiver or not cmd.proof.strip()):
        raise BadCommand("the Event has started: a sponsor declared now needs written proof of the sponsored "
                         "affiliation (proof, with on_waiver false)", field="proof")
    return SponsorDeclared(player=cmd.player, company=cmd.company, on_waiver=not state.event_started,
                           proof=cmd.proof, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def inspect_logos(cmd: InspectLogos) -> LogosInspected:
    need_role(cmd.role, ("rep", "td"), "record a logo check")
    return LogosInspected(player=cmd.player, logos=cmd.logos, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def start_event(state: BrandingState, cmd: StartEvent) -> EventStarted:
    """ "the moment all players are first dealt their hole cards ("shuffle up and deal") on the first day"."""
    need_role(cmd.role, ("td",), "mark the start of the Event")
    if state.event_started:
        raise IllegalAction("the Event has already started", field="type")
    return EventStarted(at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- rule: the final table ------------------------------------------------------------------
def start_final_table(state: BrandingState, facts: TableFacts, cmd: StartFinalTable) -> FinalTableStarted:
    """Records who starts the final table without logos: they stay without them."""
    need_role(cmd.role, ("td",), "start the final table")
    if state.final_table_bare is not None:
        raise IllegalAction("the final table has already started", field="type")
    unchecked = [s for s in facts.seats if state.inspection(s.player) is None]
    if unchecked:
        raise IllegalAction("check the logos of " + ", ".join(f"seat {s.seat} ({s.name})" for s in unchecked) +
                            " first: a player starting the final table without logos stays so", field="type")
    bare = tuple(s.player for s in facts.seats if not state.visible(s.player))
    return FinalTableStarted(bare=bare, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- rule: company limits -------------------------------------------------------------------
def _limit(scope: str, config: ComplianceConfig, field: FieldData) -> int:
    if scope not in SCOPES:
        raise BadCommand("scope must be tv_table or field", field="scope")
    if scope == "tv_table":
        return config.tv_table_company_limit
    limit = field_limit(field, config)
    if limit is None:
        raise IllegalAction("enter the field's entries first: the limit is 10% of them", field="scope")
    return limit


def decide_keepers(state: BrandingState, config: ComplianceConfig, field: FieldData, cmd: DecideLogoKeepers) -> LogoKeepersDecided:
    """The players themselves (or a representative) decided who keeps the logo."""
    need_role(cmd.role, ("rep", "td"), "record who keeps a logo")
    if same(cmd.company, config.organiser):
        raise BadCommand(f"{config.organiser} is exempt from the company limits", field="company")
    limit = _limit(cmd.scope, config, field)
    if len(set(cmd.keep)) > limit:
        raise BadCommand(f"at most {limit} may keep {cmd.company}'s logo", field="keep")
    return LogoKeepersDecided(company=cmd.company, scope=cmd.scope, keep=tuple(dict.fromkeys(cmd.keep)),
                              method="decision", at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def card_strength(card: str) -> tuple[int, int]:
    return RANKS.index(card[0]), SUIT_ORDER.index(card[1])


def high_card_draw(state: BrandingState, config: ComplianceConfig, field: FieldData, cmd: HighCardDraw) -> LogoKeepersDecided:
    """No decision was made: the organiser high-cards the players; the highest cards keep it."""
    need_role(cmd.role, ("rep", "td"), "record a high-card draw")
    if same(cmd.company, config.organiser):
        raise BadCommand(f"{config.organiser} is exempt from the company limits", field="company")
    limit = _limit(cmd.scope, config, field)
    places = cmd.places or limit
    if places > limit:
        raise BadCommand(f"at most {limit} may keep {cmd.company}'s logo", field="places")
    players = [p for p, _ in cmd.draws]
    cards = [c for _, c in cmd.draws]
    if len(set(players)) != len(players):
        raise BadCommand("each player draws one card", field="draws")
    if len(set(cards)) != len(cards):
        raise BadCommand("the same card was drawn twice: one deck, one card each", field="draws")
    ranked = sorted(cmd.draws, key=lambda pc: card_strength(pc[1]), reverse=True)
    return LogoKeepersDecided(company=cmd.company, scope=cmd.scope, keep=tuple(p for p, _ in ranked[:places]),
                              method="high_card", draws=cmd.draws, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def company_board(state: BrandingState, config: ComplianceConfig, field: FieldData, tv_players: tuple[str, ...]) -> tuple[dict, ...]:
    """Per company: who wears it at the TV table, the limits, and who keeps it (the rep's board)."""
    companies = dict.fromkeys(lg.company.strip() for p in tv_players for lg in state.visible(p))
    out = []
    for company in companies:
        exempt = same(company, config.organiser)
        wearers = tv_wearers(state, config, company, tv_players)
        out.append({"company": company, "exempt": exempt, "tv_table": list(wearers),
                    "tv_table_limit": None if exempt else config.tv_table_company_limit,
                    "field": field.wearers_of(company), "field_limit": None if exempt else field_limit(field, config),
                    "keep_tv_table": list(state.keep(company, "tv_table") or ()),
                    "keep_field": list(state.keep(company, "field") or ())})
    return tuple(out)


def apply_branding(state: BrandingState, event) -> BrandingState:
    if isinstance(event, LogosInspected):
        return replace(state, inspections=tuple(i for i in state.inspections if i.player != event.player) + (event,))
    if isinstance(event, SponsorDeclared):
        return replace(state, sponsors=state.sponsors + (event,))
    if isinstance(event, EventStarted):
        return replace(state, event_started=True)
    if isinstance(event, FinalTableStarted):
        return replace(state, final_table_bare=frozenset(event.bare))
    if isinstance(event, LogoKeepersDecided):
        kept = tuple(k for k in state.keepers if not (same(k.company, event.company) and k.scope == event.scope))
        return replace(state, keepers=kept + (event,))
    return state
