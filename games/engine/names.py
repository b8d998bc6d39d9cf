"""The names of the game's components in the four languages of the rulebook: territory types, artefacts
and cards (``content.md`` §5). Data and lookups only; the one home of these names for the site, the log,
emails and the move notation (:mod:`.notation`), so a tile is called the same everywhere.

Korean follows the Korean edition (§5.4–5.6). The Swedish and Polish editions keep the printed English
names; the site translates them (issue 15), following the glossary's words where it gives one (Homelands:
*närprovinser*, *włości*; Ambush: *bakhåll*, *zasadzka*; …). A component whose id is missing here keeps the
content set's English name in every language, so a new content set still shows and parses.
"""

from __future__ import annotations

from .content import Content

#: The languages with names here besides the content's English.
LANGS = ("sv", "pl", "ko")

#: Territory type id -> language -> name.
TERRITORY_NAMES: dict[str, dict[str, str]] = {
    "homelands": {"sv": "Närprovinser", "pl": "Włości", "ko": "본토"},
    "grasslands": {"sv": "Gräsmarker", "pl": "Łąki", "ko": "초원"},
    "forest": {"sv": "Skog", "pl": "Las", "ko": "숲"},
    "marshlands": {"sv": "Träskmarker", "pl": "Bagna", "ko": "습지"},
    "village": {"sv": "By", "pl": "Wioska", "ko": "마을"},
    "fort": {"sv": "Fort", "pl": "Fort", "ko": "요새"},
    "ruins": {"sv": "Ruiner", "pl": "Ruiny", "ko": "폐허"},
    "mountains": {"sv": "Berg", "pl": "Góry", "ko": "산지"},
    "cave": {"sv": "Grotta", "pl": "Jaskinia", "ko": "동굴"},
    "abbey": {"sv": "Kloster", "pl": "Opactwo", "ko": "수도원"},
    "shrine": {"sv": "Helgedom", "pl": "Sanktuarium", "ko": "사당"},
    "city": {"sv": "Stad", "pl": "Miasto", "ko": "도시"},
    "fortress": {"sv": "Fästning", "pl": "Twierdza", "ko": "성곽"},
    "arena": {"sv": "Arena", "pl": "Arena", "ko": "경기장"},
    "battlefield": {"sv": "Slagfält", "pl": "Pole bitwy", "ko": "전장"},
}

#: Artefact ability -> language -> the ability's word: Korean as printed (§5.5); Swedish and Polish in the
#: genitive that the artefact's title needs ("Vredens spira", "Berło Gniewu").
ABILITY_NAMES: dict[str, dict[str, str]] = {
    "corruption": {"sv": "Fördärvets", "pl": "Zepsucia", "ko": "붕괴"},
    "fury": {"sv": "Raseriets", "pl": "Furii", "ko": "격분"},
    "insight": {"sv": "Insiktens", "pl": "Wglądu", "ko": "통찰력"},
    "order": {"sv": "Ordningens", "pl": "Porządku", "ko": "명령"},
    "prosperity": {"sv": "Välståndets", "pl": "Dobrobytu", "ko": "번영"},
    "vitality": {"sv": "Livskraftens", "pl": "Witalności", "ko": "활기"},
    "fear": {"sv": "Fruktans", "pl": "Strachu", "ko": "두려움"},
    "influence": {"sv": "Inflytandets", "pl": "Wpływu", "ko": "영향력"},
    "rage": {"sv": "Vredens", "pl": "Gniewu", "ko": "분노"},
    "defiance": {"sv": "Trotsets", "pl": "Oporu", "ko": "저항"},
    "loyalty": {"sv": "Lojalitetens", "pl": "Lojalności", "ko": "충성"},
    "vigour": {"sv": "Styrkans", "pl": "Wigoru", "ko": "활력"},
    "brutality": {"sv": "Brutalitetens", "pl": "Brutalności", "ko": "야만성"},
    "greed": {"sv": "Girighetens", "pl": "Chciwości", "ko": "탐욕"},
    "preparation": {"sv": "Förberedelsens", "pl": "Przygotowania", "ko": "대비"},
    "cleansing": {"sv": "Reningens", "pl": "Oczyszczenia", "ko": "정화"},
    "devotion": {"sv": "Hängivenhetens", "pl": "Oddania", "ko": "헌신"},
    "resurgence": {"sv": "Återkomstens", "pl": "Odrodzenia", "ko": "부활"},
}

#: Artefact type -> language -> word (§5.1).
ARTEFACT_TYPES: dict[str, dict[str, str]] = {
    "crown": {"en": "crown", "sv": "krona", "pl": "Korona", "ko": "왕관"},
    "sceptre": {"en": "sceptre", "sv": "spira", "pl": "Berło", "ko": "홀"},
    "orb": {"en": "orb", "sv": "äpple", "pl": "Jabłko", "ko": "오브"},
}

#: Card id -> language -> name (§5.4 where the glossary gives one).
CARD_NAMES: dict[str, dict[str, str]] = {
    "authority": {"sv": "Auktoritet", "pl": "Autorytet", "ko": "권위"},
    "call_to_arms": {"sv": "Mönstring", "pl": "Wezwanie do broni", "ko": "군대 동원"},
    "tactical_advance": {"sv": "Taktisk framryckning", "pl": "Taktyczny przemarsz", "ko": "전략적 진군"},
    "fracture": {"sv": "Spräcka", "pl": "Pęknięcie", "ko": "균열"},
    "probing_attack": {"sv": "Sonderande anfall", "pl": "Atak rozpoznawczy", "ko": "탐색 공격"},
    "shield_wall": {"sv": "Sköldmur", "pl": "Mur tarcz", "ko": "방패벽"},
    "audacious_charge": {"sv": "Djärv stormning", "pl": "Zuchwała szarża", "ko": "대담한 돌격"},
    "heroic_assault": {"sv": "Hjältemodigt anfall", "pl": "Bohaterski szturm", "ko": "영웅적 돌격"},
    "ambush": {"sv": "Bakhåll", "pl": "Zasadzka", "ko": "매복"},
    "rallying_cry": {"sv": "Stridsrop", "pl": "Okrzyk bojowy", "ko": "집결의 함성"},
    "war_banner": {"sv": "Krigsbanér", "pl": "Sztandar wojenny", "ko": "전쟁 깃발"},
}


def _lang(lang: str) -> str:
    """The two-letter base of a language code (``"sv-se"`` -> ``"sv"``)."""
    return lang.lower()[:2]


def territory_name(content: Content, type_id: str, lang: str) -> str:
    """The name of territory type ``type_id`` in ``lang`` (``"en"``, ``"sv"``, ``"pl"``, ``"ko"``):
    ``"mountains"`` -> "Mountains", "Berg", "Góry", "산지". An unknown type id is returned as it is."""
    tdef = content.territory_types.get(type_id)
    english = tdef.name if tdef is not None else type_id
    return TERRITORY_NAMES.get(type_id, {}).get(_lang(lang), english)


def artefact_name(content: Content, art_id: str, lang: str) -> str:
    """The title of artefact ``art_id`` in ``lang``: "Sceptre of Rage", "Vredens spira", "Berło Gniewu",
    "분노의 홀". An unknown id is returned as it is."""
    adef = content.artefacts.get(art_id)
    if adef is None:
        return art_id
    code = _lang(lang)
    word = ABILITY_NAMES.get(adef.ability, {}).get(code)
    kind = ARTEFACT_TYPES.get(adef.type, {}).get(code)
    if word is None or kind is None:
        return adef.name
    if code == "ko":
        return f"{word}의 {kind}"
    if code == "sv":
        return f"{word} {kind}"
    return f"{kind} {word}"


def card_name(content: Content, card_id: str, lang: str) -> str:
    """The name of the card with content id ``card_id`` (``"war_banner"``) in ``lang``: "War Banner",
    "Krigsbanér", "Sztandar wojenny", "전쟁 깃발". An unknown id is returned as it is."""
    english = next((c.name for c in content.cards if c.id == card_id), card_id)
    return CARD_NAMES.get(card_id, {}).get(_lang(lang), english)


def territory_spellings(content: Content, type_id: str) -> set[str]:
    """Every name of territory type ``type_id``: the content's English and each language's."""
    return {territory_name(content, type_id, lang) for lang in ("en", *LANGS)}


def card_spellings(content: Content, card_id: str) -> set[str]:
    """Every name of card ``card_id``: the content's English and each language's."""
    return {card_name(content, card_id, lang) for lang in ("en", *LANGS)}


def artefact_spellings(content: Content, art_id: str) -> set[str]:
    """Every title of artefact ``art_id``: the content's English and each language's."""
    return {artefact_name(content, art_id, lang) for lang in ("en", *LANGS)}
