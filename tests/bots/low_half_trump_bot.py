"""A bot with issue 30's bug: when the trump double is led (as a declarer leads its best
trump) it follows with the tiles whose HIGH half is the trump number only, so with [2|2] led
and twos trump it does not see that [2|6] follows. When its only trumps show the trump
number as their low half, it believes it cannot follow and plays its first other tile — an
illegal play, refused, and made again on every fresh act. It plays by the rules in every
other trick, and like the random bot in the bidding and when naming trump.
"""

import botlib

args = botlib.setup(botlib.parser(__doc__))


def is_trump(tile: list[int], trump: object) -> bool:
    if trump == "no_trump":
        return False
    if trump == "doubles":
        return tile[0] == tile[1]
    return trump in tile


def thinks_trump(tile: list[int], trump: object) -> bool:
    """Where the bug is: [2|6] with twos trump is a trump too."""
    return is_trump(tile, trump) and (trump == "doubles" or tile[1] == trump)


def play(view: dict, rng: botlib.random.Random) -> list[int]:
    hand, trick = view["hand"], view["trick"]
    trump = view["contract"]["trump"]
    if not trick:
        return rng.choice(hand)
    led = trick[0]["tile"]
    if led[0] == led[1] == trump:  # the trump double led: the bug's one way in
        followers = [tile for tile in hand if thinks_trump(tile, trump)]
        if not followers:  # "void": plays something that is no trump, as it thinks
            return ([tile for tile in hand if not thinks_trump(tile, trump)] or hand)[0]
    elif is_trump(led, trump):
        followers = [tile for tile in hand if is_trump(tile, trump)]
    else:
        suit = led[1]
        followers = [t for t in hand if suit in t and not is_trump(t, trump)]
    return rng.choice(followers or hand)


for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "low half trump")
    elif message["type"] == "act":
        view = message["view"]
        if view["phase"] == "playing":
            action = {"type": "play", "tile": play(view, rng)}
            botlib.send({"type": "action", "id": message["id"], "action": action})
        else:
            botlib.answer(message, rng)
