#!/usr/bin/env python3
"""Writes topics.txt: 2,400 self-written sentences on six topics (pets,
cooking, travel, programming, weather, music), for training tiny fastText
models in the tests. Deterministic (seeded); written for engram, public domain.
Each sentence takes three or four words of one topic and some common words,
so that words of a topic share contexts and a model learns the topics."""
import random

TOPICS = {
    "pets": "dog puppy retriever leash bark kennel vet fetch paws tail collar treats "
            "terrier labrador kitten cat whiskers litter hamster parrot".split(),
    "cooking": "recipe oven bake flour sugar butter dough pasta sauce garlic onion simmer "
               "skillet bread spices soup kitchen salt pepper chef".split(),
    "travel": "flight airport passport hotel luggage train ticket beach museum itinerary "
              "suitcase booking visa tour journey map hostel cruise station abroad".split(),
    "programming": "compiler function bug debugger variable pointer server database query "
                   "commit branch repository deploy library kernel code software build test "
                   "crash".split(),
    "weather": "rain storm thunder cloud forecast sunny wind snow humid temperature drizzle "
               "fog hail breeze umbrella frost heatwave lightning showers climate".split(),
    "music": "guitar piano melody concert song chord drummer rhythm album violin orchestra "
             "lyrics band singer tune choir jazz tempo stage rehearsal".split(),
}
COMMON = "the a my our this that with and of at in on for to was is very some".split()
TEMPLATES = [
    "{c} {w0} {c} {w1} {c} {w2}",
    "{w0} {c} {w1} {c} {c} {w2} {w3}",
    "{c} {c} {w0} {w1} {c} {w2}",
    "{w0} {w1} {c} {w2} {c} {w3}",
]


def main():
    rng = random.Random(19)
    lines = []
    for _ in range(400):
        for words in TOPICS.values():
            picked = rng.sample(words, 4)
            template = rng.choice(TEMPLATES)
            fields = {f"w{i}": w for i, w in enumerate(picked)}
            text = template.format(**fields, c="{c}")
            while "{c}" in text:
                text = text.replace("{c}", rng.choice(COMMON), 1)
            lines.append(text)
    rng.shuffle(lines)
    with open("topics.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
