"""Tiny random QA models (ELECTRA, BERT, RoBERTa, ALBERT) with tokenizers trained offline, saved to a folder.

Nothing is downloaded: the tokenizer is trained with the `tokenizers` library (ALBERT: with `sentencepiece`,
and saved as a bare spiece.model as the public ALBERT checkpoints are, so loading converts it to a fast
tokenizer as it does for them) on a few sentences and the model is built from a config, so these run
anywhere in well under a second each.
"""

from __future__ import annotations

from pathlib import Path

CORPUS = [
    "Normandy is a region in France. The Normans gave their name to it in the 10th century.",
    "The steam engine uses steam pressure to do work. James Watt improved it in 1781.",
    "In what country is Normandy located? When did the Normans give their name to Normandy?",
    "Who improved the steam engine? What does the engine use to do work? Who invented the jet engine?",
    "Computational complexity theory classifies problems by the resources they need, such as time and memory.",
    "The Huguenots were French Protestants who fled persecution and settled in many countries.",
]

ARCHITECTURES = ("electra", "bert", "roberta", "albert")


def _wordpiece(folder: Path, tokenizer_class: str):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(CORPUS * 3, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    fast.save_pretrained(folder)
    return fast


def _byte_bpe(folder: Path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(
        CORPUS * 3,
        trainers.BpeTrainer(
            vocab_size=400, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tok.post_processor = processors.RobertaProcessing(
        ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        cls_token="<s>",
        sep_token="</s>",
        mask_token="<mask>",
    )
    fast.save_pretrained(folder)
    return fast


def _sentencepiece(folder: Path):
    """A unigram spiece.model with ALBERT's special tokens, and the fast tokenizer transformers converts it to."""
    import io

    import sentencepiece
    from transformers import AlbertTokenizer

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS * 3),
        model_writer=model,
        model_type="unigram",
        vocab_size=200,
        hard_vocab_limit=False,
        pad_id=0,
        unk_id=1,
        bos_id=2,
        eos_id=3,
        pad_piece="<pad>",
        unk_piece="<unk>",
        bos_piece="[CLS]",
        eos_piece="[SEP]",
        user_defined_symbols=["[MASK]"],
        num_threads=1,
        minloglevel=2,
    )
    (folder / "spiece.model").write_bytes(model.getvalue())
    return AlbertTokenizer.from_pretrained(folder)


def build_tiny_model(folder: Path, architecture: str, *, max_positions: int = 64, seed: int = 0) -> Path:
    """Save a random `architecture` QA model and its tokenizer into `folder`; return the folder."""
    import torch
    from transformers import AlbertConfig, AutoModelForQuestionAnswering, BertConfig, ElectraConfig, RobertaConfig

    folder.mkdir(parents=True, exist_ok=True)
    common = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    if architecture == "roberta":
        tokenizer = _byte_bpe(folder)
        config = RobertaConfig(
            vocab_size=len(tokenizer),
            max_position_embeddings=max_positions + 2,
            type_vocab_size=1,
            pad_token_id=tokenizer.pad_token_id,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            **common,
        )
    elif architecture == "albert":
        tokenizer = _sentencepiece(folder)
        config = AlbertConfig(
            vocab_size=len(tokenizer),
            embedding_size=16,
            max_position_embeddings=max_positions,
            pad_token_id=tokenizer.pad_token_id,
            bos_token_id=tokenizer.cls_token_id,
            eos_token_id=tokenizer.sep_token_id,
            **common,
        )
    else:
        tokenizer = _wordpiece(folder, architecture)
        cls = ElectraConfig if architecture == "electra" else BertConfig
        extra = {"embedding_size": 16} if architecture == "electra" else {}
        config = cls(
            vocab_size=len(tokenizer),
            max_position_embeddings=max_positions,
            pad_token_id=tokenizer.pad_token_id,
            **common,
            **extra,
        )
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)  # deterministic weights; the global state is restored below
    try:
        model = AutoModelForQuestionAnswering.from_config(config)
    finally:
        torch.random.set_rng_state(generator_state)
    model.save_pretrained(folder)
    return folder
