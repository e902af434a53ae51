"""The show's compliance settings (the show config's ``[compliance]`` part, once wired)."""

from __future__ import annotations

from dataclasses import dataclass

HALT_AT = ("turn", "first_action")


@dataclass(frozen=True)
class ComplianceConfig:
    # Cards to the camera: HALT PLAY when the action reaches an unshown seat ("turn"), or
    # already at the hand's first action while any dealt-in seat is unshown ("first_action").
    halt_at: str = "turn"
    # The final table has the hidden camera (rule "Filming and Image Rights").
    hidden_camera: bool = True
    # Branding. The organiser's own logo is exempt from the company limits.
    organiser: str = "Pokerfest"
    approved_operators: tuple[str, ...] = ()  # approved gaming operators
    forbidden_operators: tuple[str, ...] = ()  # may not advertise under local law
    unauthorised_satellites: tuple[str, ...] = ()
    filming: bool = True  # the TV table is always filmed: the 4 cm x 5 cm rules apply
    tv_table_company_limit: int = 2
    field_company_share: float = 0.10
    # "Calling for Clock": an action this close after the countdown ends is a tie, and
    # "that tie will customarily go to the player" (the dealer's key trails the chips).
    clock_tie_ms: int = 1000
    # The called clock's allowance, (seconds, countdown): the rule book's 50 s + 10 s, and
    # 25 s + 5 s at levels of ``short_level_minutes`` or less. A rehearsal show may shorten
    # them (never the live rules' defaults), so a test need not wait half a minute.
    clock_standard: tuple[int, int] = (50, 10)
    clock_short_levels: tuple[int, int] = (25, 5)
    short_level_minutes: int = 20

    def __post_init__(self) -> None:
        if self.halt_at not in HALT_AT:
            raise ValueError(f"halt_at must be one of {', '.join(HALT_AT)}")
        for name in ("clock_standard", "clock_short_levels"):
            seconds, countdown = getattr(self, name)
            if seconds < 1 or countdown < 0:
                raise ValueError(f"{name} must be (seconds of at least 1, countdown of at least 0)")
