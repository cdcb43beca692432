package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/tokenizer"
	"github.com/spf13/cobra"
)

type templateFlags struct {
	model   string
	chat    chatFlags
	context string
	now     string
	tokens  bool
	noGen   bool
}

func templateCmd() *cobra.Command {
	var tf templateFlags
	cmd := &cobra.Command{
		Use:   "template (-m FILE | --chat-template NAME|FILE) (--messages FILE | --context FILE)",
		Short: "Print the exact prompt a conversation renders to (or its token ids with --tokens)",
		Long: `Renders a conversation with a chat template and prints the result byte for
byte, nothing else on stdout. --messages takes an OpenAI-style JSON list of
messages (bos/eos from the model, add_generation_prompt on); --context takes
a JSON object of every template variable (messages, add_generation_prompt,
bos_token, eos_token, tools, ...), as in ../shared/templates/expected.jsonl.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTemplate(&tf, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&tf.model, "model", "m", "", "GGUF model or vocabulary file: its chat template, BOS/EOS and tokenizer")
	tf.chat.registerTemplate(cmd)
	cmd.Flags().StringVar(&tf.chat.messages, "messages", "", `OpenAI-style JSON list of messages ("-": stdin)`)
	cmd.Flags().StringVar(&tf.chat.system, "system", "", "a system turn put before the messages")
	cmd.Flags().StringVar(&tf.context, "context", "", "JSON object of all template variables (instead of --messages)")
	cmd.Flags().StringVar(&tf.now, "now", "", "the clock strftime_now reads, e.g. 2024-07-26T00:00:00 (default: now)")
	cmd.Flags().BoolVar(&tf.tokens, "tokens", false, "print the token ids (needs -m)")
	cmd.Flags().BoolVar(&tf.noGen, "no-generation-prompt", false, "with --messages: do not open an assistant turn at the end")
	return cmd
}

func runTemplate(tf *templateFlags, stdout, stderr io.Writer) error {
	if (tf.chat.messages == "") == (tf.context == "") {
		return usageErr("give either --messages or --context")
	}
	if tf.tokens && tf.model == "" {
		return usageErr("--tokens needs a model (-m)")
	}
	if tf.context != "" && (tf.chat.system != "" || tf.chat.kwargs != "" || tf.chat.tools != "" || tf.noGen) {
		return usageErr("--context holds every variable: --system, --tools, --chat-template-kwargs and --no-generation-prompt go with --messages")
	}
	tools, err := tf.chat.readTools()
	if err != nil {
		return err
	}
	now, err := parseNow(tf.now)
	if err != nil {
		return err
	}
	kwargs, err := parseKwargs(tf.chat.kwargs)
	if err != nil {
		return err
	}
	var f *gguf.File
	var tok *tokenizer.Tokenizer
	if tf.model != "" {
		if f, err = gguf.Open(tf.model); err != nil {
			return err
		}
		defer f.Close()
		if tok, err = tokenizer.FromGGUF(f); err != nil {
			return fmt.Errorf("%s: %w", tf.model, err)
		}
	}
	tmpl, err := resolveTemplate(tf.chat.template, f, stderr)
	if err != nil {
		return err
	}
	var text string
	if tf.context != "" {
		ctx, err := readFileOrStdin(tf.context)
		if err != nil {
			return fmt.Errorf("context: %w", err)
		}
		if text, err = tmpl.RenderContext(ctx, now); err != nil {
			return err
		}
	} else {
		msgs, err := readMessagesFile(tf.chat.messages)
		if err != nil {
			return err
		}
		if tf.chat.system != "" {
			msgs = append([]chat.Message{{Role: "system", Content: chat.Text(tf.chat.system)}}, msgs...)
		}
		opts := vocabOptions(tok, chat.Options{AddGenerationPrompt: !tf.noGen, Kwargs: kwargs, Tools: tools, Now: now})
		if text, err = tmpl.Render(msgs, opts); err != nil {
			return err
		}
	}
	if !tf.tokens {
		_, err = io.WriteString(stdout, text)
		return err
	}
	ids := tokenizeChat(tok, text)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	_, err = fmt.Fprintln(stdout, strings.Join(parts, " "))
	return err
}

func readFileOrStdin(path string) ([]byte, error) {
	if path == "-" {
		s, err := readStdin()
		return []byte(s), err
	}
	return os.ReadFile(path)
}
