"""Text agreement: ROUGE-L of short sentences computed by hand, equal to the COCO scorer's, each text's agreement,
the item's, the medoid, missing texts, and photo-by-photo means."""
from __future__ import annotations

import random

import pytest
from pycocoevalcap.rouge.rouge import Rouge, my_lcs

from metrics.text_agreement import (
    ItemAgreement,
    agreements,
    content_words,
    fold,
    item_agreement,
    lcs_length,
    mean_agreement,
    pairwise_rouge_l,
    rouge_l,
    tokens,
)

B2 = 1.2 ** 2


def test_tokens_are_lowercased_words_without_punctuation():
    assert tokens("A dog's ball, black-and-white!  Isn't it?") == ["a", "dog's", "ball", "black-and-white", "isn't",
                                                                   "it"]
    assert tokens(" ... ") == []


@pytest.mark.parametrize("word, folded", [
    ("dogs", "dog"), ("men", "man"), ("children", "child"), ("buses", "bus"), ("dog's", "dog"), ("dog’s", "dog"),
    ("glasses", "glass"), ("is", "is"), ("bus", "bus"), ("his", "his"), ("running", "running"),
])
def test_plurals_and_possessives_are_folded(word, folded):
    assert fold(word) == folded


def test_content_words_leave_out_function_words_and_fold_plurals():
    assert content_words("It's a dog's ball; the dogs are running with THEIR men.") == [
        "dog", "ball", "dog", "running", "man"]
    assert content_words("It is on the ...") == []


def test_rouge_l_of_two_short_sentences_by_hand():
    candidate = tokens("A man rides a horse.")  # 5 words
    reference = tokens("A man is riding a brown horse")  # 7 words
    # the longest common subsequence is "a man a horse": 4 words
    assert lcs_length(candidate, reference) == 4 == lcs_length(reference, candidate)
    # P = 4/5, R = 4/7, F = (1 + b^2) P R / (R + b^2 P) = 2.44 * 4 / (5 + 1.44 * 7)
    assert rouge_l(candidate, reference) == pytest.approx(2.44 * 4 / 15.08)
    assert rouge_l(candidate, reference) == pytest.approx(0.6472148541)
    # the other way round (recall weighs more): 2.44 * 4 / (7 + 1.44 * 5)
    assert rouge_l(reference, candidate) == pytest.approx(9.76 / 14.2)
    assert rouge_l(candidate, candidate) == pytest.approx(1.0)
    assert rouge_l(candidate, tokens("Stock prices fell")) == 0.0
    assert rouge_l([], reference) == 0.0


def test_rouge_l_equals_the_coco_scorer_on_random_word_lists():
    rng = random.Random(3)
    vocabulary = ["a", "the", "dog", "cat", "runs", "on", "grass", "beach", "red", "ball"]
    for _ in range(500):
        a = [rng.choice(vocabulary) for _ in range(rng.randint(1, 30))]
        b = [rng.choice(vocabulary) for _ in range(rng.randint(1, 30))]
        assert lcs_length(a, b) == my_lcs(a, b)
        assert rouge_l(a, b) == pytest.approx(Rouge().calc_score([" ".join(a)], [" ".join(b)]))


def test_lcs_of_long_texts_longer_than_a_machine_word():
    a = [f"w{i % 7}" for i in range(150)]
    b = [f"w{i % 5}" for i in range(140)]
    assert lcs_length(a, b) == my_lcs(a, b)


def test_each_text_agreement_item_agreement_and_the_medoid_by_hand():
    result = item_agreement(["A dog runs.", "A brown dog runs on grass.", "a brown dog on grass"])
    # content words: "dog run", "brown dog run grass", "brown dog grass" (2, 4, 3 words);
    # LCS(0,1) = 2 ("dog run"), LCS(0,2) = 1 ("dog"), LCS(1,2) = 3 ("brown dog grass")
    f01, f02 = 2.44 * 2 / (2 + B2 * 4), 2.44 * 1 / (2 + B2 * 3)
    f10, f12 = 2.44 * 2 / (4 + B2 * 2), 2.44 * 3 / (4 + B2 * 3)
    f20, f21 = 2.44 * 1 / (3 + B2 * 2), 2.44 * 3 / (3 + B2 * 4)
    expected = [(f01 + f02) / 2, (f10 + f12) / 2, (f20 + f21) / 2]
    assert result.scores == pytest.approx(expected)
    assert result.scores == pytest.approx([0.5074711, 0.7945551, 0.6252912])
    assert result.agreement == pytest.approx(sum(expected) / 3)
    assert result.medoid == 1  # the text closest to the others
    assert result.pairwise[0][1] == pytest.approx(f01) and result.pairwise[1][0] == pytest.approx(f10)
    assert result.pairwise[2][2] == 1.0


def test_every_word_counts_with_the_coco_scorers_words():
    result = item_agreement(["A dog runs.", "A brown dog runs on grass.", "a brown dog on grass"], words_of=tokens)
    # word counts 3, 6, 5; LCS(0,1) = 3 ("a dog runs"), LCS(0,2) = 2 ("a dog"), LCS(1,2) = 5 ("a brown dog on grass")
    f01, f02 = 2.44 * 3 / (3 + B2 * 6), 2.44 * 2 / (3 + B2 * 5)
    f10, f12 = 2.44 * 3 / (6 + B2 * 3), 2.44 * 5 / (6 + B2 * 5)
    f20, f21 = 2.44 * 2 / (5 + B2 * 3), 2.44 * 5 / (5 + B2 * 6)
    expected = [(f01 + f02) / 2, (f10 + f12) / 2, (f20 + f21) / 2]
    assert result.scores == pytest.approx(expected)
    assert result.scores == pytest.approx([0.5536489, 0.8167724, 0.7090165])
    assert result.agreement == pytest.approx(sum(expected) / 3)
    assert result.medoid == 1  # the text closest to the others
    assert result.pairwise[0][1] == pytest.approx(f01) and result.pairwise[1][0] == pytest.approx(f10)
    assert result.pairwise[2][2] == 1.0


def test_a_copied_text_from_another_item_gets_the_lowest_agreement_and_is_never_the_medoid():
    texts = ["A woman walks her dog on the beach.", "A woman and her dog walk along the beach.",
             "Two children play football in a park.", "A lady walking a brown dog on a sandy beach."]
    result = item_agreement(texts)
    assert min(range(4), key=lambda i: result.scores[i]) == 2
    assert result.scores[2] == 0.0  # no content word in common
    assert result.medoid in (0, 1, 3)


def test_a_generic_sentence_agrees_only_through_function_words():
    texts = ["A dog runs on the beach.", "A brown dog on a sandy beach.", "A picture of a person in a place."]
    # every word (6, 7, 8 words): the generic sentence shares "a" with the first, "a ... a" with the second
    every = item_agreement(texts, words_of=tokens)
    assert every.scores[2] == pytest.approx((2.44 * 1 / (8 + B2 * 6) + 2.44 * 2 / (8 + B2 * 7)) / 2)
    assert every.scores[2] == pytest.approx(0.2082731)
    # content words: "dog run beach", "brown dog sandy beach", "picture person place": nothing in common
    content = item_agreement(texts)
    assert content.scores == pytest.approx([2.44 * 2 / (3 + B2 * 4) / 2, 2.44 * 2 / (4 + B2 * 3) / 2, 0.0])


def test_ties_go_to_the_first_text():
    assert item_agreement(["a cat sleeps", "A cat sleeps.", "a dog barks"]).medoid == 0


def test_missing_texts_agree_with_each_other_only():
    result = item_agreement([None, "a dog runs", None])
    assert result.pairwise == [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    assert result.scores == [0.5, 0.0, 0.5]
    assert result.agreement == pytest.approx(1 / 3)
    assert result.medoid == 0


def test_one_text_or_none_has_no_agreement():
    assert item_agreement(["a dog"]) == ItemAgreement([None], None, 0, [[1.0]])
    assert item_agreement([]) == ItemAgreement([], None, None, [])
    assert agreements([["a dog"], []]) == [item_agreement(["a dog"]), item_agreement([])]


def test_empty_texts_agree_with_nothing():
    assert pairwise_rouge_l(["", ""]) == [[1.0, 0.0], [0.0, 1.0]]


def test_mean_agreement_over_aligned_parts_by_hand():
    first = item_agreement(["A dog runs.", "A brown dog runs on grass.", "a brown dog on grass"])
    second = item_agreement(["a cat sleeps", "A cat sleeps.", "a dog barks"])
    assert second.scores == pytest.approx([1 / 2, 1 / 2, 0])  # "cat sleep" twice, "dog bark"
    combined = mean_agreement([first, second])
    assert combined.scores == pytest.approx([(0.5074711 + 1 / 2) / 2, (0.7945551 + 1 / 2) / 2, 0.6252912 / 2])
    assert combined.parts == (first, second)
    assert combined.medoid == 1
    assert combined.agreement == pytest.approx((first.agreement + second.agreement) / 2)
    with pytest.raises(ValueError, match="same number of answers"):
        mean_agreement([first, item_agreement(["a", "b"])])
    assert mean_agreement([]).medoid is None
