package fiji.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The project's standard, "Javadoc on all public API", kept: every public type, constructor,
 * method and field of {@code src/main/java} that the javadoc tool documents (public, in public
 * types all the way out, interface members included) has a Javadoc comment. Methods marked
 * {@code @Override} are left out, as javadoc gives them the overridden method's comment.
 * <p>
 * A source scan rather than the javadoc tool's doclint, which the offline build has no plugin
 * for; {@code javadoc -Xdoclint:all} also checks the tags and HTML (see the README's
 * Development section).
 */
class JavadocTest {

	private static final Path SOURCES = Paths.get("src/main/java/fiji/cuda");

	@Test
	void everyPublicTypeAndMemberHasAJavadocComment() throws IOException {
		List<Path> files;
		try (Stream<Path> s = Files.walk(SOURCES)) {
			files = s.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
		}
		assertTrue(files.size() > 20, "the sources were not found from " + Paths.get("").toAbsolutePath());
		List<String> undocumented = new ArrayList<>();
		int declarations = 0;
		for (Path f : files) {
			Scan scan = new Scan(new String(Files.readAllBytes(f), StandardCharsets.UTF_8));
			declarations += scan.publicDeclarations;
			for (String d : scan.undocumented)
				undocumented.add(SOURCES.relativize(f) + ":" + d);
		}
		// a scanner that lost its way would find nothing to check, and so nothing missing
		assertTrue(declarations > 300, "only " + declarations + " public declarations were found");
		assertEquals(List.of(), undocumented, "public API without a Javadoc comment");
	}

	/** The scanner itself, on a source that has one of each case. */
	@Test
	void theScanFindsWhatJavadocWouldShowUndocumented() {
		String src = String.join("\n",
			"package p;",
			"/** Documented. */",
			"public class A {",
			"	public int bare;",
			"	/** Documented. */",
			"	@Deprecated",
			"	public static final String NAME = \"{ \" + '}';",
			"	// a line comment is not Javadoc",
			"	public A() {",
			"		Runnable r = new Runnable() { public void run() {} };",
			"	}",
			"	@Override",
			"	public String toString() { return \"}\"; }",
			"	/* a block comment is not Javadoc */",
			"	public void bareMethod(@SuppressWarnings(value = { \"x\" }) int a) {}",
			"	void packagePrivate() {}",
			"	static Runnable pool = () -> { int x = 1; };",
			"	/** Documented. */",
			"	public enum E {",
			"		/** Documented. */",
			"		X(\"x\") { },",
			"		Y(\"y\");",
			"		E(String s) {}",
			"		public String bareInEnum() { return null; }",
			"	}",
			"	/** Documented. */",
			"	public interface I {",
			"		void implicitlyPublic();",
			"		/** Documented. */",
			"		I NONE = new I() { public void implicitlyPublic() {} };",
			"		class Nested {}",
			"		private void hidden() {}",
			"	}",
			"	private static class Hidden {",
			"		public void notApi() {}",
			"	}",
			"}",
			"class PackagePrivate {",
			"	public void notApi() {}",
			"}");
		Scan scan = new Scan(src);
		assertEquals(List.of("4: public int bare", "9: public A()", "15: public void bareMethod()",
			"24: public String bareInEnum()", "28: void implicitlyPublic()", "31: class Nested"), scan.undocumented);
		assertEquals(11, scan.publicDeclarations);
	}

	/**
	 * One file's declarations, found by following its braces: a brace opens a type body, whose
	 * declarations are checked, or a block (a method body, an initializer, an anonymous class),
	 * whose contents are not API. Comments, strings and characters are skipped, so that their
	 * braces and semicolons do not count.
	 */
	static final class Scan {

		private static final Pattern TYPE = Pattern.compile("(^|\\s)(class|interface|enum|@interface)\\s");
		private static final Pattern ANNOTATION = Pattern.compile("@(?!interface\\b)[\\w.]+");

		final List<String> undocumented = new ArrayList<>();
		int publicDeclarations;

		/** A brace's context: a type body (with whether it is API and an interface) or a block. */
		private static final class Context {
			final boolean type, api, isInterface, isEnum;
			/** A field initializer is being read: its braces are blocks, and it ends at ';'. */
			boolean initializer;
			/** In an enum body, the constants have been read (up to the first ';'). */
			boolean constantsRead;

			Context(boolean type, boolean api, boolean isInterface, boolean isEnum) {
				this.type = type;
				this.api = api;
				this.isInterface = isInterface;
				this.isEnum = isEnum;
			}
		}

		private final Deque<Context> stack = new ArrayDeque<>();
		private final StringBuilder head = new StringBuilder();
		private int headLine;
		private boolean doc;
		private int parens;

		Scan(String s) {
			stack.push(new Context(true, true, false, false)); // the file: its types are API when public
			int line = 1;
			for (int i = 0; i < s.length(); i++) {
				char c = s.charAt(i);
				if (c == '\n') line++;
				if (s.startsWith("//", i)) {
					while (i + 1 < s.length() && s.charAt(i + 1) != '\n')
						i++;
					continue;
				}
				if (s.startsWith("/*", i)) {
					int end = s.indexOf("*/", i + 2);
					end = end < 0 ? s.length() : end + 2;
					// a Javadoc comment documents the declaration it comes right before
					boolean javadoc = s.startsWith("/**", i) && !s.startsWith("/**/", i);
					if (javadoc && readsHeads() && head.toString().trim().isEmpty()) doc = true;
					for (int k = i; k < end; k++)
						if (s.charAt(k) == '\n') line++;
					i = end - 1;
					continue;
				}
				if (c == '"' || c == '\'') {
					int k = i + 1;
					while (k < s.length() && s.charAt(k) != c)
						k += s.charAt(k) == '\\' ? 2 : 1;
					if (readsHeads()) append(c, line); // the literal stands as one character in the head
					i = k;
					continue;
				}
				Context top = stack.peek();
				if (!readsHeads()) {
					if (c == '{') {
						stack.push(new Context(false, false, false, false));
					} else if (c == '}') {
						stack.pop();
						if (readsHeads()) endHead(); // a method body or an enum constant's ended
					} else if (c == ';' && top.initializer) {
						top.initializer = false;
						endHead();
					}
					continue;
				}
				if (c == '(') parens++;
				if (c == ')') parens--;
				if (parens > 0) { // annotation values, parameters: their braces are array values
					append(c, line);
					continue;
				}
				if (top.isEnum && !top.constantsRead) {
					// constants, each possibly with a body of its own, up to the first ';'
					if (c == '{') {
						stack.push(new Context(false, false, false, false));
					} else if (c == ';' || c == '}') {
						top.constantsRead = true;
						endHead();
						if (c == '}') stack.pop();
					} else if (c == ',') {
						endHead();
					} else {
						append(c, line);
					}
					continue;
				}
				if (c == '{') {
					String h = head.toString();
					stack.push(declaration(h, top));
					endHead();
				} else if (c == '}') {
					stack.pop();
					endHead();
				} else if (c == ';') {
					declaration(head.toString(), top);
					endHead();
				} else if (c == '=') {
					declaration(head.toString(), top);
					endHead();
					top.initializer = true;
				} else {
					append(c, line);
				}
			}
		}

		/** Whether the innermost brace is a type body, outside a field's initializer: heads are read. */
		private boolean readsHeads() {
			Context top = stack.peek();
			return top.type && !top.initializer;
		}

		private void append(char c, int line) {
			if (head.toString().trim().isEmpty() && !Character.isWhitespace(c)) headLine = line;
			head.append(c);
		}

		private void endHead() {
			head.setLength(0);
			doc = false;
			parens = 0;
		}

		/**
		 * Checks the declaration whose head (annotations, modifiers, type, name, parameters) ends
		 * at '{', ';' or '=' in the type body {@code in}.
		 *
		 * @return the context of the brace that follows, when it is one
		 */
		private Context declaration(String h, Context in) {
			String code = ANNOTATION.matcher(stripParens(h)).replaceAll(" ").replaceAll("\\s+", " ").trim();
			boolean override = h.contains("@Override");
			Matcher type = TYPE.matcher(" " + code + " ");
			boolean isType = type.find();
			boolean isPublic = code.matches("(.*\\s)?public\\s.*")
				|| in.isInterface && !code.matches("(.*\\s)?private\\s.*");
			boolean api = in.api && isPublic;
			if (isType) {
				String kind = type.group(2);
				check(code, api);
				return new Context(true, api, kind.equals("interface") || kind.equals("@interface"), kind.equals("enum"));
			}
			boolean member = !code.isEmpty() && !code.equals("static") && !code.startsWith("package ")
				&& !code.startsWith("import ");
			if (member && !override) check(code, api);
			return new Context(false, false, false, false);
		}

		private void check(String code, boolean api) {
			if (!api) return;
			publicDeclarations++;
			if (!doc) undocumented.add(headLine + ": " + code);
		}

		/** The head without the contents of its parentheses, whose words are not modifiers. */
		private static String stripParens(String h) {
			StringBuilder b = new StringBuilder();
			int depth = 0;
			for (char c : h.toCharArray()) {
				if (c == '(') {
					if (depth++ == 0) b.append("()");
				} else if (c == ')') {
					depth--;
				} else if (depth == 0) {
					b.append(c);
				}
			}
			return b.toString();
		}
	}
}
