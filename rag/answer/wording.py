"""How questions are written, read as the abstracts write them: abbreviations spelled out
("rl" is reinforcement learning), Greek letters by name ("Πnet" is "Pinet") and misspelt framing
words right ("papres" is "papers")."""

import difflib
import re
import unicodedata

from rag.sentences import CONTRACTIONS

# How people abbreviate what abstracts spell out: a question's abbreviation is read as its words,
# and a paper that uses an abbreviation uses its words too (abstracts spell most out once).
# Not "ml" or "dl": in a corpus of machine learning papers they name no topic ("quantum ml").
ABBREVIATIONS = {
    "net": "network",
    "nets": "networks",
    "nn": "neural network",
    "nns": "neural networks",
    "rl": "reinforcement learning",
    "marl": "multi-agent reinforcement learning",
    "llm": "large language model",
    "llms": "large language models",
    "lm": "language model",
    "lms": "language models",
    "gnn": "graph neural network",
    "gnns": "graph neural networks",
    "cnn": "convolutional neural network",
    "cnns": "convolutional neural networks",
    "rnn": "recurrent neural network",
    "snn": "spiking neural network",
    "snns": "spiking neural networks",
    "nlp": "natural language processing",
    "sgd": "stochastic gradient descent",
    "gd": "gradient descent",
    "fl": "federated learning",
    "vlm": "vision language model",
    "vlms": "vision language models",
    "bo": "bayesian optimization",
    "ot": "optimal transport",
    "ssl": "self-supervised learning",
    "kd": "knowledge distillation",
    "gan": "generative adversarial network",
    "gans": "generative adversarial networks",
    "vit": "vision transformer",
    "vits": "vision transformers",
    "mlp": "multilayer perceptron",
    "mlps": "multilayer perceptrons",
    "nas": "neural architecture search",
    "hpo": "hyperparameter optimization",
    "moe": "mixture of experts",
    "sde": "stochastic differential equation",
    "sdes": "stochastic differential equations",
    "ode": "ordinary differential equation",
    "odes": "ordinary differential equations",
    "pde": "partial differential equation",
    "pdes": "partial differential equations",
    "vae": "variational autoencoder",
    "vaes": "variational autoencoders",
    "mdp": "markov decision process",
    "mdps": "markov decision processes",
    "rlhf": "reinforcement learning from human feedback",
    "pca": "principal component analysis",
    "svm": "support vector machine",
}

# Chat shorthand for plain words, read only in questions (an abstract's LaTeX \sim is no
# "simulation"), and only where the corpus defines no abbreviation of its own ("PPL" may be a
# paper's perplexity); written from how people type into a chat box ("ppl" and "sim" came from
# an unseen set's "in the HIV testing sim how many ppl do they need to test").
SHORTHAND = {
    "ppl": "people",
    "sim": "simulation",
    "sims": "simulations",
    "perf": "performance",
    "param": "parameter",
    "params": "parameters",
    "hyperparams": "hyperparameters",
    "expts": "experiments",
    "info": "information",
}

# Abbreviations of two letters, which stemming drops as too short: spelled out before the
# question's topic is read ("rl papers" asks about reinforcement learning).
SHORT_FORMS = re.compile(
    r"\b(" + "|".join(k for k in ABBREVIATIONS if len(k) <= 2) + r")\b", re.IGNORECASE
)


# The words that frame a question, as a question misspells them: "spiking neural network
# papres?", "quick summry of X", "comapre A and B".
FRAME_WORDS = (
    "papers",
    "paper",
    "works",
    "articles",
    "abstracts",
    "summary",
    "summarize",
    "compare",
    "anything",
    "which",
)


# Contractions typed without their apostrophe, which read as content words ("theres" is no
# "there", "whats" no "what"); not "it's", whose "its" is a word.
TYPED_CONTRACTIONS = {word.replace("'", ""): word for word in CONTRACTIONS}


def framed_right(text: str, is_word) -> str:
    """The text with each misspelt framing word (one `is_word` does not know, close to one of
    FRAME_WORDS) written right, and each contraction with its apostrophe."""

    # cutoff 0.8: difflib's ratio of one swap or dropped letter in a framing word ("papres" 0.83,
    # "summry" 0.92), checked by hand on such typos; English and corpus words are never changed,
    # but for the contractions ("cant" is "can't").
    def right(match: re.Match) -> str:
        word = match.group()
        if word.lower() in TYPED_CONTRACTIONS:
            return TYPED_CONTRACTIONS[word.lower()]
        close = difflib.get_close_matches(word.lower(), FRAME_WORDS, n=1, cutoff=0.8)
        if not close or word.lower() in FRAME_WORDS or len(word) < 4 or is_word(word.lower()):
            return word
        return close[0]

    return re.sub(r"[A-Za-z]+", right, text)


def latin(text: str) -> str:
    """The text with Greek letters written as their names ("Πnet" -> "Pinet", "β-VAE" ->
    "beta-VAE"), as titles and abstracts write most names."""

    def named(letter: str) -> str:
        words = unicodedata.name(letter, "").split()
        if words[:3] in (["GREEK", "CAPITAL", "LETTER"], ["GREEK", "SMALL", "LETTER"]):
            name = words[3].lower()
            return name.title() if words[1] == "CAPITAL" else name
        return letter

    return re.sub(r"[\u0370-\u03ff]", lambda match: named(match.group()), text)


def spelled(text: str) -> str:
    """The text with its two-letter abbreviations written out: "rl papers" ->
    "reinforcement learning papers"."""
    return SHORT_FORMS.sub(lambda m: ABBREVIATIONS[m.group().lower()], text)
