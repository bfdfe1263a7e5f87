"""What a query asks for by name, worked out before the arms are asked: the definition of
one name ("where is `Router` defined", `shortbytestring` typed in another case or convention)
or one member of a type named in words ("the listen method of Server"), each searched as the
name the code defines. The words are read by `sharc.ranking.framing`; whether the code defines
such a name is looked up through the finders the index hands in.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping

from sharc.ranking.framing import framed_name, member_question
from sharc.ranking.query import qualified_names, query_identifiers, respelled
from sharc.ranking.visibility import DefinitionFacts

#: `(ids, names, *, missed=True) -> {id: facts}`: those of the candidate ids whose chunk's
#: symbol is one of the names, exactly (what the definitions-first stage lifts), and with
#: `missed`, the whole definitions of the names the ids miss, each with what its declaration
#: says (`sharc.ranking.visibility.DefinitionFacts`), without reading the candidates' records.
DefinitionFinder = Callable[..., Mapping[str, DefinitionFacts]]
#: `name -> spelling`: the spelling the code defines a name with, matched in any case
#: (`ShortByteString` for `shortbytestring`; the name itself where the code spells it so),
#: None where nothing defines it.
SpellingFinder = Callable[[str], str | None]


def asked_name(
    query: str, defines: DefinitionFinder | None, spelled: SpellingFinder | None = None
) -> str | None:
    """The name a question about one definition asks for ("where is `Router` defined", "the
    Router class"; `framed_name`): searched as that name alone, such a question ranks what a
    search for the name ranks, its definitions first. A name whose shape does not say so
    (`Router`, `parse`) counts only where something defines it. With `spelled`, a name asked
    for in another case than the code's ("where is shortbytestring defined", or the query
    `sidekiq::job` alone) is searched as the code spells it."""
    framed = framed_name(query)
    if framed is None:
        member = _asked_member(query, defines)
        if member is not None:
            return member
        bare = query.strip().strip("`'\"")
        if spelled is None or len(bare.split()) != 1 or len(qualified_names(bare)) != 1:
            return None
        spelling, _ = respelled(bare, spelled)
        return spelling if spelling != bare else None
    name, shaped = framed
    if spelled is not None:
        spelling, defined = respelled(name, spelled)
        return spelling if defined or shaped else None
    if shaped:
        return name
    if defines is None or not defines([], query_identifiers(name)):
        return None
    return name


def _asked_member(query: str, defines: DefinitionFinder | None) -> str | None:
    """A question about one member of a type, in words ("the listen method of Server",
    "Server's listen method"; `member_question`), as the qualified name `Server.listen`,
    where a definition of the member lies in that type (its id, `path::fqn`, names the
    type among the fqn's outer segments) or in the module a file is (Haskell's
    `Options/Applicative/Builder.hs` for "the subparser function of Builder", a Python
    module); None otherwise ("errors in Parser")."""
    asked = member_question(query)
    if asked is None or defines is None:
        return None
    owner, member = asked
    for chunk_id in defines([], [member]):
        path, _, fqn = chunk_id.partition("::")
        outer = re.split(r"::|[.#]", fqn)[:-1]
        if owner in outer or owner == posixpath.basename(path).split(".", 1)[0]:
            return f"{owner}.{member}"
    return None
