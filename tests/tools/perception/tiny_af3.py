"""A tiny random AudioFlamingo3 + processor saved to a directory, built offline: the real
transformers path (processor, audio tower, Qwen2 decoder, generate) in a second, for every test
that needs an audio-event model. Random weights: what it writes is meaningless text."""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'audio' %}<sound>{% elif c['type'] == 'text' %}{{ c['text'] }}"
    "{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_audio_flamingo3(out: Path) -> Path:
    """Save a tiny random AudioFlamingo3 + processor to `out` without any download."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        AudioFlamingo3Config,
        AudioFlamingo3ForConditionalGeneration,
        AudioFlamingo3Processor,
        PreTrainedTokenizerFast,
        WhisperFeatureExtractor,
    )

    special = ["<unk>", "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<sound>"]
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(["crowd cheering whistle buzzer music applause speech"] * 10, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        unk_token="<unk>",
        pad_token="<|endoftext|>",
        eos_token="<|im_end|>",
        additional_special_tokens=["<sound>", "<|im_start|>", "<|im_end|>"],
    )
    features = WhisperFeatureExtractor(
        feature_size=16, sampling_rate=16000, hop_length=160, chunk_length=1, n_fft=400
    )
    processor = AudioFlamingo3Processor(features, tokenizer, chat_template=CHAT_TEMPLATE)
    config = AudioFlamingo3Config(
        audio_config=dict(
            num_mel_bins=16,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=64,
            hidden_size=32,
            max_source_positions=50,
        ),
        text_config=dict(
            model_type="qwen2",
            vocab_size=len(tokenizer),
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
        ),
        audio_token_id=tokenizer.convert_tokens_to_ids("<sound>"),
    )
    torch.manual_seed(0)
    AudioFlamingo3ForConditionalGeneration(config).eval().save_pretrained(out)
    processor.save_pretrained(out)
    return out
