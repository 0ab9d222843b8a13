package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.testing.TestPrograms;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium and its chromedriver, found by {@link TestPrograms} ({@code TOOLCALL_CHROMIUM},
 * {@code TOOLCALL_CHROMEDRIVER}, else {@code PATH}; {@code .ci/ensure-browser.sh} installs Debian's), driven by
 * Selenium, with the waits the page tests use. Never skips: a missing browser fails the test, naming the variable and
 * the script that installs it. Waits are bounded conditions, never sleeps.
 */
public final class Browser implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(20);
  // Selenium logs through java.util.logging; its CDP version notice is not a problem here (strong reference kept).
  private static final java.util.logging.Logger SELENIUM = java.util.logging.Logger.getLogger("org.openqa.selenium");

  static {
    SELENIUM.setLevel(java.util.logging.Level.SEVERE);
  }

  public final ChromeDriver driver;

  private Browser(ChromeDriver driver) {
    this.driver = driver;
  }

  /** A new headless browser. */
  public static Browser open() {
    Path chromium = TestPrograms.chromium();
    Path chromedriver = TestPrograms.chromedriver();
    ChromeOptions o = new ChromeOptions();
    o.setBinary(chromium.toFile());
    o.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1000,800", "--no-first-run", "--disable-extensions");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
        .usingAnyFreePort().withSilent(true).build();
    return new Browser(new ChromeDriver(service, o));
  }

  /** Runs {@code source} in every page this browser opens from now on, before the page's own scripts. */
  public void beforeEveryPage(String source) {
    driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", source));
  }

  public void go(Object url) {
    driver.get(url.toString());
  }

  /** Waits until {@code condition} returns a non-null, non-false value. */
  public <T> T until(String what, Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, WAIT).withMessage(what).until(condition);
  }

  /** The card of {@code callId}, once shown. */
  public WebElement card(String callId) {
    return until("the card of " + callId, d -> {
      List<WebElement> cards = d.findElements(By.cssSelector("[data-call-id='" + callId + "']"));
      return cards.isEmpty() ? null : cards.get(0);
    });
  }

  /** Waits until the card of {@code callId} shows {@code state} (a wire name). */
  public WebElement cardIn(String callId, String state) {
    return until(callId + " shown as " + state, d -> {
      List<WebElement> cards = d.findElements(By.cssSelector("[data-call-id='" + callId + "'][data-state='" + state + "']"));
      return cards.isEmpty() ? null : cards.get(0);
    });
  }

  /**
   * Clicks the button {@code action} of the card of {@code callId}, once it is there; a card drawn again between
   * finding the button and clicking it (a newer version of the call arrived) is looked up again.
   */
  public void click(String callId, String action) {
    until("button " + action + " of " + callId, d -> {
      List<WebElement> b = d.findElements(By.cssSelector("[data-call-id='" + callId + "'] [data-action='" + action + "']"));
      if (b.isEmpty()) {
        return null;
      }
      try {
        b.get(0).click();
        return Boolean.TRUE;
      } catch (org.openqa.selenium.StaleElementReferenceException redrawn) {
        return null;
      }
    });
  }

  /** The text of the first element matching {@code css} in the card of {@code callId}, once there. */
  public String text(String callId, String css) {
    return until(css + " in " + callId, d -> {
      List<WebElement> e = d.findElements(By.cssSelector("[data-call-id='" + callId + "'] " + css));
      return e.isEmpty() || e.get(0).getText().isEmpty() ? null : e.get(0).getText();
    });
  }

  @Override
  public void close() {
    driver.quit();
  }
}
